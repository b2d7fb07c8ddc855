/** One UTF-16 code unit as its `\uXXXX` escape, the form JSON and JavaScript both read back. */
export const unicodeEscape = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * The bidirectional formatting characters (embeddings, overrides, isolates and the three marks),
 * as the body of a character class. Printed raw they reorder the text around them, so a hostile
 * command reads as a harmless one (Trojan Source); where we print tape text for a terminal, as
 * text or as JSON, they are shown as escapes instead.
 */
export const BIDI_CLASS = String.raw`\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069`;
export const BIDI_FORMATTING = new RegExp(`[${BIDI_CLASS}]`, 'g');
