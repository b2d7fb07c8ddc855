import { promises as fs, realpathSync } from 'fs';
import * as path from 'path';
import { looksBinary } from './binary';
import { commandEnv, type CommandEnvPolicy } from './commandEnv';
import { confine } from './confine';
import { globMatcher } from './glob';
import { walkFiles } from './gitignoreWalk';
import { runShellCommand } from './shellCommand';
import type { Capped, CommandOptions, CommandResult, DirEntry, EntryKind, FileStat, SearchOptions, TextMatch, WorkspacePort } from './workspacePort';

/** Files larger than this are not searched: they are generated or data, and reading them costs more than it tells. */
const MAX_SEARCHED_FILE_BYTES = 2 * 1024 * 1024;
const MAX_MATCH_LINE_CHARS = 300;

/** The workspace port over a directory on disk. */
export class NodeWorkspace implements WorkspacePort {
  /** The root's realpath, so confinement compares real paths on both sides. */
  readonly root: string;

  /** `commandEnv` says which secret-looking variables commands may see (by default none). */
  constructor(
    root: string,
    private readonly options: { readonly commandEnv?: CommandEnvPolicy } = {},
  ) {
    this.root = realpathSync(root);
  }

  async readFile(p: string): Promise<Uint8Array> {
    const { real, rel } = await confine(this.root, p);
    if ((await fs.stat(real).catch(() => undefined))?.isDirectory()) throw new Error(`${rel} is a directory, not a file`);
    return fs.readFile(real).catch((error: NodeJS.ErrnoException) => {
      throw error.code === 'ENOENT' ? new Error(`${rel} does not exist`) : error;
    });
  }

  async listDir(p: string): Promise<DirEntry[]> {
    const { real, rel } = await confine(this.root, p);
    const stat = await fs.stat(real).catch(() => undefined);
    if (!stat) throw new Error(`${rel} does not exist`);
    if (!stat.isDirectory()) throw new Error(`${rel} is a file, not a directory`);
    const entries = await fs.readdir(real, { withFileTypes: true });
    return Promise.all(
      entries.map(async (e): Promise<DirEntry> => ({
        name: e.name,
        // A symlink is listed as what it points to; reading through it is still confined.
        kind: e.isSymbolicLink() ? kindOf(await fs.stat(path.join(real, e.name)).catch(() => undefined)) : kindOf(e),
      })),
    );
  }

  async findFiles(pattern: string, limit: number): Promise<Capped<string>> {
    const matches = globMatcher(pattern);
    const items: string[] = [];
    for await (const rel of walkFiles(this.root)) {
      if (!matches(rel)) continue;
      if (items.length === limit) return { items, truncated: true };
      items.push(rel);
    }
    return { items, truncated: false };
  }

  async searchText(pattern: RegExp, options: SearchOptions): Promise<Capped<TextMatch>> {
    // A global or sticky regex keeps lastIndex between lines and would skip matches.
    const regex = new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, ''));
    const included = options.include === undefined ? undefined : globMatcher(options.include);
    const items: TextMatch[] = [];
    for await (const rel of walkFiles(this.root)) {
      if (included && !included(rel)) continue;
      const text = await readSearchable(path.join(this.root, rel));
      if (text === undefined) continue;
      const lines = text.split(/\r?\n/);
      for (let i = 0; i < lines.length; i++) {
        if (!regex.test(lines[i])) continue;
        if (items.length === options.limit) return { items, truncated: true };
        items.push({ path: rel, line: i + 1, text: lines[i].length > MAX_MATCH_LINE_CHARS ? `${lines[i].slice(0, MAX_MATCH_LINE_CHARS)}…` : lines[i] });
      }
    }
    return { items, truncated: false };
  }

  async writeFile(p: string, content: string): Promise<void> {
    const { real, rel } = await confine(this.root, p);
    if ((await fs.stat(real).catch(() => undefined))?.isDirectory()) throw new Error(`${rel} is a directory, not a file`);
    await fs.mkdir(path.dirname(real), { recursive: true });
    await fs.writeFile(real, content, 'utf8');
  }

  async stat(p: string): Promise<FileStat | undefined> {
    const { real } = await confine(this.root, p);
    const stat = await fs.stat(real).catch(() => undefined);
    return stat && { kind: kindOf(stat), size: stat.size };
  }

  runCommand(command: string, options: CommandOptions): Promise<CommandResult> {
    return runShellCommand(command, { cwd: this.root, env: commandEnv(process.env, this.options.commandEnv) }, options);
  }
}

function kindOf(stat: { isFile(): boolean; isDirectory(): boolean } | undefined): EntryKind {
  return stat?.isDirectory() ? 'directory' : stat?.isFile() ? 'file' : 'other';
}

async function readSearchable(abs: string): Promise<string | undefined> {
  try {
    const stat = await fs.stat(abs);
    if (stat.size > MAX_SEARCHED_FILE_BYTES) return undefined;
    const bytes = await fs.readFile(abs);
    return looksBinary(bytes) ? undefined : bytes.toString('utf8');
  } catch {
    return undefined;
  }
}
