import * as fs from 'fs';
import * as path from 'path';
import { TapeFileError } from '../store/errors';
import type { TapeStore } from '../store/tapeStore';
import { sourceFormatOf } from './detect';
import type { FormatName } from './format';
import { ingestionOf, type IngestReport, type SourceIngestion } from './ingest';
import { sourceOfChange, sourcesIn } from './sourcesUnder';

/** Agents write a record in several chunks; one ingest per burst. */
const DEBOUNCE_MS = 100;
/** fs.watch can miss events (network file systems, editors that rename): a slow poll backs it up. */
const POLL_MS = 1000;

/** How many followed transcripts keep their read positions; one let go is read whole next time. */
const MAX_FOLLOWED = 256;

/**
 * The transcripts one process follows, each a TranscriptIngest that reads only what its files
 * gained; kept per tape (a position says what is on that tape), least recently used let go.
 */
export class FollowedTranscripts {
  private readonly byFile = new Map<string, SourceIngestion>();

  constructor(private readonly from?: FormatName) {}

  /** `told`: the format a folder walk told the file by (sourcesUnder.ts), when the ingestion is new. */
  ingest(store: TapeStore, file: string, told?: FormatName): Promise<IngestReport> {
    const key = `${store.tapeId}\u0000${path.resolve(file)}`;
    const t = this.byFile.get(key) ?? ingestionOf(file, this.from ?? told);
    this.byFile.delete(key);
    this.byFile.set(key, t);
    if (this.byFile.size > MAX_FOLLOWED) this.byFile.delete(this.byFile.keys().next().value as string);
    return t.ingest(store);
  }
}

/**
 * Ingests the transcripts under `sources` (files, or folders searched recursively) again whenever
 * they change, until `signal` aborts: each run reads and appends only what the file gained. A file
 * safeRead refuses (a FIFO, a device, too large) goes to `onRefused` with the reason.
 * A Claude Code subagent file counts as a change of its parent session's transcript; a changed
 * file that is not a transcript is left alone. One ingest at a time.
 */
export async function followTranscripts(
  store: TapeStore,
  sources: readonly string[],
  from: FormatName | undefined,
  signal: AbortSignal,
  onIngest: (r: IngestReport) => void,
  onRefused: (e: TapeFileError) => void = () => undefined,
): Promise<void> {
  const followed = new FollowedTranscripts(from);
  const pending = new Map<string, NodeJS.Timeout>();
  let queue = Promise.resolve();
  const sizes = new Map<string, number>();
  const ingest = (file: string, told?: FormatName): void => {
    queue = queue.then(async () => {
      if (signal.aborted || !fs.existsSync(file)) return;
      sizes.set(file, fs.statSync(file).size);
      try {
        onIngest(await followed.ingest(store, file, told));
      } catch (e) {
        if (!(e instanceof TapeFileError)) throw e;
        onRefused(e);
      }
    });
  };
  const changed = (file: string): void => {
    const transcript = sourceOfChange(file);
    if (transcript === null) return;
    clearTimeout(pending.get(transcript));
    pending.set(
      transcript,
      setTimeout(() => (pending.delete(transcript), ingest(transcript)), DEBOUNCE_MS),
    );
  };
  const watchers = sources.map((src) => {
    const dir = fs.statSync(src).isDirectory();
    const base = dir ? src : path.dirname(src);
    return fs.watch(base, { recursive: true }, (_event, name) => {
      if (name === null) return;
      const file = path.join(base, name.toString());
      if (dir || sourceOfChange(file) === path.resolve(src)) changed(file);
    });
  });
  // The poll catches what the watchers missed: a known transcript whose size changed.
  const poll = setInterval(() => {
    for (const [file, size] of sizes) if (fs.existsSync(file) && fs.statSync(file).size !== size) changed(file);
  }, POLL_MS);
  // Whatever was written before the watchers were armed (since the caller's own ingest) is taken
  // now: a catch-up ingest of every transcript, which appends only what is new.
  for (const src of sources)
    for (const { source, format } of fs.statSync(src).isDirectory() ? sourcesIn(src).sources : [{ source: src, format: sourceFormatOf(src)?.name }])
      ingest(path.resolve(source), format ?? undefined);
  try {
    await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
  } finally {
    clearInterval(poll);
    for (const w of watchers) w.close();
    for (const t of pending.values()) clearTimeout(t);
    await queue;
  }
}
