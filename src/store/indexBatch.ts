import type { MessagePort } from 'worker_threads';

/**
 * What the tape's thread and its index worker (indexWorker.ts, parallelIndex.ts) send each other.
 * Rows travel as one buffer of payload JSON with offsets, so a batch is one transfer, not a
 * structured clone per row.
 */
export interface IndexBatch {
  type: 'rows';
  ids: Float64Array;
  kinds: string[];
  names: string[];
  payloads: Uint8Array;
  /** `ends[i]` ends row i's payload in `payloads`. */
  ends: Uint32Array;
}

/** Asks for the index of every row sent so far; answered on the reply port, then `state[DRAINED]` is set to `seq`. */
export interface IndexDrain {
  type: 'drain';
  seq: number;
}

export type IndexRequest = IndexBatch | IndexDrain;

/** `image`: a database of just `entries_fts`, indexing the rows sent since the last drain (see adoptIndex). */
export interface IndexReply {
  seq: number;
  image: Uint8Array;
}

export interface IndexWorkerData {
  /** Int32 cells shared with the tape's thread (see DRAINED, PROGRESS). */
  state: SharedArrayBuffer;
  replies: MessagePort;
}

/** The seq of the last drain answered, or FAILED. */
export const DRAINED = 0;
/** In DRAINED: the worker failed for good and answers nothing more. */
export const FAILED = -1;
/** Bumped with each batch indexed: a worker that is busy, not stuck. */
export const PROGRESS = 1;
