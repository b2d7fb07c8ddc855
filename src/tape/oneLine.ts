/** Text on one line (runs of whitespace as one space), cut at `max` characters with an ellipsis: how hosts show a tool call. */
export function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
}
