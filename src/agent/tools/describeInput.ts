const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The one argument that says what a tool call does (its path, pattern, query, task…), else the JSON: how hosts show a call in a line. */
export function describeInput(input: unknown): string {
  if (!isRecord(input)) return String(input);
  for (const key of ['path', 'pattern', 'query', 'command', 'name', 'task']) if (typeof input[key] === 'string') return input[key];
  return JSON.stringify(input);
}
