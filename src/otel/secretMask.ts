/**
 * What content attributes may not carry: the values of the exporting process's secret variables
 * (the caller names them), and text shaped like a provider's API key wherever it came from (a key
 * a user pasted into a prompt, a tool that printed one). Content is opt-in; secrets are never sent.
 */
const KEY_SHAPES =
  /\b(?:sk-[A-Za-z0-9_-]{16,}|sk-ant-[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,})/g;

/** Shorter values are words, not keys: masking them would garble the text and hide no secret. */
const MIN_SECRET_CHARS = 8;

export const REDACTED = '[redacted]';

export function secretMask(secrets: readonly string[]): (text: string) => string {
  const values = [...new Set(secrets.filter((s) => s.length >= MIN_SECRET_CHARS))].sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text;
    for (const s of values) if (out.includes(s)) out = out.split(s).join(REDACTED);
    return out.replace(KEY_SHAPES, REDACTED);
  };
}
