import type { MessagePort } from 'worker_threads';
import type { IndexSegments } from './indexSegments';

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

/** Asks for the segments of every row sent so far; answered on the reply port, then `state[DRAINED]` is set to `seq`. */
export interface IndexDrain {
  type: 'drain';
  seq: number;
}

export type IndexRequest = IndexBatch | IndexDrain;

export interface IndexReply {
  seq: number;
  segments: IndexSegments;
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
