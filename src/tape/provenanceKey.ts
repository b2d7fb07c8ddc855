/**
 * Provenance keys (what makes an append idempotent) are built from parts, each URI-encoded so that
 * no part can pass for two: an id holding "/" stays one part. Keys already on users' tapes must
 * keep their bytes, and they come in two forms: the agent's turn entries and ingested sessions
 * encode every part (a leading name such as `error/tool` as `error%2Ftool`), while the domain's own
 * keys (`view/…`, `fork/merge/…`, `interrupted/…`) lead with their name as written.
 */

/** One part of a key, URI-encoded; a number as its decimal text (an integer's digits encode to themselves). */
const keyPart = (part: string | number): string => encodeURIComponent(String(part));

/** A key of parts, every one encoded. */
export const provenanceKeyOf = (...parts: (string | number)[]): string => parts.map(keyPart).join('/');

/** A key led by a name fixed in code, written as is, and then the encoded parts. */
export const namedProvenanceKey = (name: string, ...parts: (string | number)[]): string => [name, ...parts.map(keyPart)].join('/');
