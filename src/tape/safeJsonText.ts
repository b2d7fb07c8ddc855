import { BIDI_CLASS, unicodeEscape } from './unicodeEscape';

/**
 * What must not appear raw in JSON we print or export: C0 controls (the line feed aside, see
 * below), DEL and the C1 controls (CSI, U+009B, is an escape sequence to a terminal as much as
 * ESC is), the line and paragraph separators (line breaks to JavaScript and many editors), and
 * lone surrogates (not encodable in UTF-8: written raw they turn into U+FFFD and the text
 * changes). JSON.stringify escapes C0 controls and lone surrogates but writes DEL, C1 and
 * U+2028/U+2029 as they are. The bidirectional formatting characters too (`BIDI_CLASS`):
 * JSON read in a terminal is text, and they would reorder it.
 */
const UNSAFE = new RegExp(
  String.raw`[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029${BIDI_CLASS}]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]`,
  'g',
);
/** A quick look first: most texts have none of these, and then are returned as they are. */
const MAYBE_UNSAFE = new RegExp(String.raw`[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029${BIDI_CLASS}\ud800-\udfff]`);

const escape = (c: string): string =>
  // Tab and carriage return are, with the line feed, the only controls valid JSON has raw, and
  // only as whitespace between tokens, where they can go; any other is in a text that is not JSON
  // at all, and its escape keeps it harmless there.
  c === '\t' || c === '\r' ? '' : unicodeEscape(c);

/**
 * `text`, a JSON text (or JSON Lines), as one with the same values and none of the characters
 * above raw: inside strings (the only place valid JSON has them) they become `\u` escapes, and
 * JSON whitespace that is a control goes, except the line feed, which is the lines of pretty
 * printed JSON and of JSON Lines. A linear pass without parsing, so any nesting or size is safe,
 * and idempotent: a safe text comes back unchanged, so export, import, export is byte for byte stable.
 */
export function safeJsonText(text: string): string {
  return MAYBE_UNSAFE.test(text) ? text.replace(UNSAFE, escape) : text;
}
