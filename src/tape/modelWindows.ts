/**
 * The context windows of model families whose window is published and stable, for sessions whose
 * record does not say (another agent's: its model calls name the model but not its window). A
 * model id matches a family by a prefix of its last path segment (`anthropic/claude-sonnet-4-5`,
 * `claude-opus-4-1-20250805`), case-insensitively; the first match wins, so longer prefixes come
 * first. Anything else is unknown: the caller then assumes a window and says so.
 */
const FAMILIES: readonly (readonly [prefix: string, window: number])[] = [
  ['claude-', 200_000],
  ['gpt-5', 400_000],
  ['gpt-4.1', 1_047_576],
  ['gpt-4o', 128_000],
  ['gpt-4-turbo', 128_000],
  ['o4-mini', 200_000],
  ['o3', 200_000],
  ['o1', 200_000],
  ['codex-mini', 200_000],
  ['gemini-', 1_048_576],
  ['deepseek-', 128_000],
];

/** The published window of a model's family, or null when the family is not one of the known ones. */
export function knownContextWindow(modelId: string): number | null {
  const name = (modelId.split('/').pop() ?? '').trim().toLowerCase();
  return FAMILIES.find(([prefix]) => name.startsWith(prefix))?.[1] ?? null;
}
