import { BIDI_FORMATTING, unicodeEscape } from '../../tape/unicodeEscape';

/**
 * Text from the model or a tape (paths, commands, names, server errors, file content) shown in
 * Markdown as code, so nothing in it is read as Markdown or HTML: a fence or code span of
 * backticks longer than any run of backticks in the text cannot be closed by the text. This is
 * the one place that turns such text into Markdown; everything else puts it through here. A
 * bidirectional formatting character is written as its escape (`\u202e`): applied, it would
 * reorder what the reader sees, so a command or an edit to confirm could read as another.
 */
export function codeBlock(source: string, language = ''): string {
  const text = shownText(source);
  // Line breaks inside need nothing: only a line of backticks as long as the fence could close it.
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(text) + 1));
  return `${fence}${language}\n${text}${text.endsWith('\n') ? '' : '\n'}${fence}`;
}

/** Text in a confirmation or notice is shown up to this many lines; the rest is counted, not hidden silently. */
const MAX_SHOWN_LINES = 200;

/** A code block of at most `maxLines` lines, saying how many more there are. */
export function shownBlock(text: string, language: string, maxLines = MAX_SHOWN_LINES): string {
  const lines = text.split('\n');
  if (lines.length <= maxLines) return codeBlock(text, language);
  return `${codeBlock(lines.slice(0, maxLines).join('\n'), language)}\n\n*${lines.length - maxLines} more lines not shown.*`;
}

/**
 * Inline code on one line: every line break is a space, since a break could end the paragraph
 * (and with it the span) and start a heading, a list or an image below it. CommonMark strips one
 * space each side of a span's content when both are there, so text that starts or ends with a
 * backtick or a space gets one of its own each side; text of spaces only is never stripped.
 */
export function codeSpan(text: string): string {
  const line = shownText(text).replace(LINE_BREAKS, ' ');
  // An empty span would be two backticks with nothing between, which is not a span at all.
  if (line === '') return '` `';
  const ticks = '`'.repeat(longestBacktickRun(line) + 1);
  const pad = /^ +$/.test(line) || !/^[` ]|[` ]$/.test(line) ? '' : ' ';
  return `${ticks}${pad}${line}${pad}${ticks}`;
}

/**
 * A code span in a cell of a (GFM) table: the row is split at pipes before code spans are read, so
 * a pipe in the text would end the cell and leave the rest to be read as Markdown. A pipe after an
 * odd number of backslashes is escaped for every parser (marked, VS Code's, counts them), so each
 * pipe gets one or two more; it then shows as itself (some parsers drop one backslash before it).
 */
export function codeCell(text: string): string {
  return codeSpan(text).replace(/(\\*)\|/g, (_pipe, backslashes: string) => `${backslashes}${backslashes.length % 2 === 0 ? '\\' : '\\\\'}|`);
}

/**
 * CommonMark's line endings (\r\n, \r, \n) and the ones other parsers and editors honour: NEL
 * (U+0085), LINE SEPARATOR and PARAGRAPH SEPARATOR (U+2028, U+2029), vertical tab and form feed.
 */
const LINE_BREAKS = /\r\n|[\n\r\u000b\u000c\u0085\u2028\u2029]/g;

const shownText = (text: string): string => text.replace(BIDI_FORMATTING, unicodeEscape);

function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return longest;
}
