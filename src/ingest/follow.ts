import * as fs from 'fs';
import * as path from 'path';
import { TapeFileError } from '../store/errors';
import type { TapeStore } from '../store/tapeStore';
import type { FormatName } from './format';
import { ingestFile, type IngestReport } from './ingest';
import { ownerTranscriptOf, transcriptFilesUnder } from './transcriptFiles';

/** Agents write a record in several chunks; one ingest per burst. */
const DEBOUNCE_MS = 100;
/** fs.watch can miss events (network file systems, editors that rename): a slow poll backs it up. */
const POLL_MS = 1000;

/**
 * Ingests the transcripts under `sources` (files, or folders searched recursively) again whenever
 * they change, until `signal` aborts: each run appends only what the file gained (provenance keys).
 * A Claude Code subagent file counts as a change of its parent session's transcript; a changed
 * file that is not a transcript is left alone. One ingest at a time.
 */
export async function followTranscripts(store: TapeStore, sources: readonly string[], from: FormatName | undefined, signal: AbortSignal, onIngest: (r: IngestReport) => void): Promise<void> {
  const pending = new Map<string, NodeJS.Timeout>();
  let queue = Promise.resolve();
  const sizes = new Map<string, number>();
  const ingest = (file: string): void => {
    queue = queue.then(async () => {
      if (signal.aborted || !fs.existsSync(file)) return;
      sizes.set(file, fs.statSync(file).size);
      try {
        onIngest(await ingestFile(store, file, from));
      } catch (e) {
        if (!(e instanceof TapeFileError)) throw e;
      }
    });
  };
  const changed = (file: string): void => {
    if (!file.endsWith('.jsonl')) return;
    const transcript = ownerTranscriptOf(file);
    clearTimeout(pending.get(transcript));
    pending.set(transcript, setTimeout(() => (pending.delete(transcript), ingest(transcript)), DEBOUNCE_MS));
  };
  const watchers = sources.map((src) => {
    const dir = fs.statSync(src).isDirectory();
    const base = dir ? src : path.dirname(src);
    return fs.watch(base, { recursive: true }, (_event, name) => {
      if (name === null) return;
      const file = path.join(base, name.toString());
      if (dir || ownerTranscriptOf(file) === path.resolve(src)) changed(file);
    });
  });
  // The poll catches what the watchers missed: a known transcript whose size changed.
  const poll = setInterval(() => {
    for (const [file, size] of sizes) if (fs.existsSync(file) && fs.statSync(file).size !== size) changed(file);
  }, POLL_MS);
  // Whatever was written before the watchers were armed (since the caller's own ingest) is taken
  // now: a catch-up ingest of every transcript, which appends only what is new.
  for (const src of sources) for (const file of fs.statSync(src).isDirectory() ? transcriptFilesUnder(src) : [src]) ingest(path.resolve(file));
  try {
    await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
  } finally {
    clearInterval(poll);
    for (const w of watchers) w.close();
    for (const t of pending.values()) clearTimeout(t);
    await queue;
  }
}
