/**
 * The folder a Copilot CLI session ran in, from its `workspace.yaml` (`cwd: <path>`, a flat YAML
 * mapping the CLI writes beside `events.jsonl`). Only that top-level scalar is read, never the
 * rest of the document: a plain, a single-quoted or a double-quoted (JSON escapes) scalar.
 */
export function cwdOfWorkspaceYaml(text: string): string | undefined {
  const line = /^cwd:[ \t]*(.*?)[ \t]*$/m.exec(text)?.[1];
  if (line === undefined || line === '') return undefined;
  if (line.startsWith("'")) return line.endsWith("'") && line.length > 1 ? line.slice(1, -1).replace(/''/g, "'") : undefined;
  if (line.startsWith('"')) {
    try {
      const value: unknown = JSON.parse(line);
      return typeof value === 'string' ? value : undefined;
    } catch {
      return undefined;
    }
  }
  // A plain scalar ends before a comment.
  return line.replace(/[ \t]+#.*$/, '');
}
