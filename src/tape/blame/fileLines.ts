/**
 * A file's lines as blame numbers them: split at line feeds, a carriage return before one dropped (so
 * a CRLF file and its LF copy compare equal), and a final line break ending the last line rather
 * than starting an empty one. An empty file has no lines.
 */
export function fileLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  for (let i = 0; i < lines.length; i++) if (lines[i].endsWith('\r')) lines[i] = lines[i].slice(0, -1);
  return lines;
}

/** Text an edit wrote, with CRLF line breaks read as LF (as `fileLines` reads the file). */
export const lfText = (text: string): string => (text.includes('\r\n') ? text.replace(/\r\n/g, '\n') : text);
