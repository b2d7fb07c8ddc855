import { promises as fs, realpathSync } from 'fs';
import * as path from 'path';
import { TapeFileError } from '../../store/errors';
import { readRegularFileSync, readRegularPrefix } from '../../store/safeRead';
import { looksBinary } from './binary';
import { commandEnv, type CommandEnvPolicy } from './commandEnv';
import { confine } from './confine';
import { globMatcher } from './glob';
import { LineMatcher, PatternTimeoutError, type NamedText } from './lineMatcher';
import { writeNoFollow } from './noFollowWrite';
import { walkFiles } from './gitignoreWalk';
import { runShellCommand } from './shellCommand';
import type {
  Capped,
  CommandOptions,
  CommandResult,
  DirEntry,
  EntryKind,
  FilePrefix,
  FileStat,
  SearchOptions,
  TextMatch,
  WorkspacePort,
} from './workspacePort';

/** Files larger than this are not searched: they are generated or data, and reading them costs more than it tells. */
const MAX_SEARCHED_FILE_BYTES = 2 * 1024 * 1024;
const MAX_MATCH_LINE_CHARS = 300;
/** A regex from the model gets this long per file, and a whole search this long, before it ends with an error. */
const PATTERN_TIME_LIMIT_MS = 2_000;
const SEARCH_TIME_LIMIT_MS = 30_000;
/** Files sent to the matcher at once (the time limit is per batch). */
const BATCH_FILES = 64;
const BATCH_CHARS = 1024 * 1024;

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

  async readFile(p: string, maxBytes: number): Promise<FilePrefix> {
    const { real, rel } = await confine(this.root, p);
    try {
      return await readRegularPrefix(real, maxBytes);
    } catch (error) {
      // The model knows the file by its workspace path; safeRead names the real one.
      if (error instanceof TapeFileError && error.file === real) throw new Error(`${rel} ${error.message.slice(real.length + 2)}`, { cause: error });
      throw error;
    }
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
    const deadline = Date.now() + SEARCH_TIME_LIMIT_MS;
    const matcher = new LineMatcher(regex, PATTERN_TIME_LIMIT_MS, MAX_MATCH_LINE_CHARS);
    // Files go to the matcher in batches: a round trip per file would cost more than the matching.
    let batch: NamedText[] = [];
    let batchChars = 0;
    /** Adds the batch's hits; true when the limit was passed (one hit more than the room tells that). */
    const flush = async (): Promise<boolean> => {
      const hits = batch.length === 0 ? [] : await matcher.match(batch, options.limit - items.length + 1, deadline, options.signal);
      for (const [i, fileHits] of hits.entries()) {
        for (const [line, text] of fileHits) {
          if (items.length === options.limit) return true;
          items.push({ path: batch[i].name, line: line + 1, text });
        }
      }
      batch = [];
      batchChars = 0;
      return false;
    };
    try {
      for await (const rel of walkFiles(this.root)) {
        if (options.signal?.aborted) throw new Error('the search was cancelled');
        if (Date.now() > deadline) throw new PatternTimeoutError(`the search took longer than ${SEARCH_TIME_LIMIT_MS / 1000} s; narrow it with include`);
        if (included && !included(rel)) continue;
        const text = readSearchable(path.join(this.root, rel));
        if (text === undefined) continue;
        batch.push({ name: rel, text });
        batchChars += text.length;
        if ((batch.length >= BATCH_FILES || batchChars >= BATCH_CHARS) && (await flush())) return { items, truncated: true };
      }
      return { items, truncated: await flush() };
    } finally {
      await matcher.dispose();
    }
  }

  async writeFile(p: string, content: string): Promise<void> {
    const { real, rel } = await confine(this.root, p);
    if ((await fs.stat(real).catch(() => undefined))?.isDirectory()) throw new Error(`${rel} is a directory, not a file`);
    await fs.mkdir(path.dirname(real), { recursive: true });
    await writeNoFollow(real, rel, content);
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

/**
 * One descriptor, checked with fstat: a FIFO, a device or a file over the limit is skipped unread.
 * Read synchronously: a regular file of at most 2 MiB reads at once, and the search awaits the
 * matcher between files anyway, where a promise per open, stat, read and close made a search
 * of 215 files take 170 ms instead of 6.
 */
function readSearchable(abs: string): string | undefined {
  try {
    const bytes = readRegularFileSync(abs, MAX_SEARCHED_FILE_BYTES, 'search_text');
    return looksBinary(bytes) ? undefined : bytes.toString('utf8');
  } catch {
    return undefined;
  }
}
