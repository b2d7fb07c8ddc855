const encoder = new TextEncoder();

/**
 * The longest prefix of `text` that is at most `maxBytes` in UTF-8 and does not split a character
 * (encodeInto stops before a character that does not fit). Tool outputs are capped by bytes, the
 * unit a tape and a provider count.
 */
export function utf8Prefix(text: string, maxBytes: number): string {
  const { read } = encoder.encodeInto(text, new Uint8Array(Math.max(0, maxBytes)));
  return text.slice(0, read);
}
