/**
 * Model-written text (paths, commands, file content) shown in Markdown as code, so nothing in it
 * is read as Markdown or HTML: a fence or code span of backticks longer than any run of backticks
 * in the text cannot be closed by the text.
 */
export function codeBlock(text: string, language = ''): string {
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(text) + 1));
  return `${fence}${language}\n${text}${text.endsWith('\n') ? '' : '\n'}${fence}`;
}

/** Inline code; a text that starts or ends with a backtick (or a space) is padded, as CommonMark strips one space each side. */
export function codeSpan(text: string): string {
  const ticks = '`'.repeat(longestBacktickRun(text) + 1);
  const pad = /^[` ]|[` ]$/.test(text) ? ' ' : '';
  return `${ticks}${pad}${text.replace(/\r?\n/g, ' ')}${pad}${ticks}`;
}

function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return longest;
}
