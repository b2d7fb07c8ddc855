/**
 * How deep a tape's JSON may nest. Payloads are tool inputs and outputs, messages and anchors'
 * state: real ones nest a few levels (tool JSON Schemas a few dozen at most), while a line of
 * 200,000 `[` from a hostile file or model overflows the stack of every recursive walk of the
 * value (validation, canonical JSON, JSON.stringify) and costs V8's JSON.parse ~0.7 µs a level.
 * Levels count from the outermost value: a tape line (an entry) is level 1, its payload level 2,
 * so an entry the store accepts is a line a JSONL import accepts, and the other way round.
 */
export const MAX_JSON_DEPTH = 256;

/** What is wrong with a value or text nested beyond `limit`. */
export const tooDeep = (limit = MAX_JSON_DEPTH): string => `nests arrays and objects more than ${limit} levels deep`;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/**
 * Why `text` is refused when it opens an array or object more than `limit` levels deep (naming
 * the character), else null. One pass without recursion that stops at the first level too many,
 * so it is safe and quick on any text, JSON or not: it runs before JSON.parse, which then reports
 * whatever else is wrong. Strings are skipped with indexOf: most of a payload's text is in them.
 */
export function jsonTextTooDeep(text: string, limit = MAX_JSON_DEPTH): string | null {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // The closing quote is the next one not escaped, i.e. after an even run of backslashes.
      let end = i;
      for (;;) {
        end = text.indexOf('"', end + 1);
        if (end < 0) return null;
        let k = end - 1;
        while (text.charCodeAt(k) === BACKSLASH) k--;
        if ((end - k) % 2 === 1) break;
      }
      i = end;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > limit) return `${tooDeep(limit)} (at character ${i + 1})`;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return null;
}
