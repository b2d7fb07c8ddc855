/**
 * What the person wrote, as Cline, Roo Code and Kilo Code wrap it for the model: the first prompt
 * as `<task>…</task>` (Roo Code later `<user_message>`), a reply as `<feedback>…</feedback>`, an
 * answer to the model's question as `<answer>…</answer>`; the latter two usually inside a tool's
 * result (attempt_completion's, ask_followup_question's, an approval's), as the extension sends them.
 */

const WRAPPED = /^<(task|user_message|feedback|answer)>\r?\n?([\s\S]*?)\r?\n?<\/\1>$/;

/** A user text block as written: the wrapped words when the block is one wrapper, else the block as it is. */
export function unwrapped(text: string): string {
  const trimmed = text.trim();
  return WRAPPED.exec(trimmed)?.[2] ?? trimmed;
}

const REPLY = /<(feedback|answer)>\r?\n?([\s\S]*?)\r?\n?<\/\1>/g;

/** The replies and answers a tool result carries, in order. */
export function repliesIn(text: string): string[] {
  return [...text.matchAll(REPLY)].map((m) => m[2].trim()).filter((t) => t !== '');
}
