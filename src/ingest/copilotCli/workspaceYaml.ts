/**
 * The folder a Copilot CLI session ran in, from its `workspace.yaml` (`cwd: <path>`, a flat YAML
 * mapping the CLI writes beside `events.jsonl`). Only that top-level scalar is read, never the
 * rest of the document: a plain, a single-quoted or a double-quoted (JSON escapes) scalar.
 */
export function cwdOfWorkspaceYaml(text: string): string | undefined {
  // The line taken whole, then trimmed without a regex: matching blanks before the line's end backtracks
  // quadratically on a line of blanks with text after them (4 s for 60,000 in a 64 KiB file).
  const line = /^cwd:(.*)$/m.exec(text)?.[1].trim();
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
  const comment = line.search(/[ \t]#/);
  return comment < 0 ? line : line.slice(0, comment).trimEnd();
}
