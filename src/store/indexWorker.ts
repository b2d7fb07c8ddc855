import type { Database, SqlJsStatic, Statement } from 'sql.js';
import { parentPort, workerData } from 'worker_threads';
import type { JsonObject, Kind } from '../tape/entry';
import { DRAINED, FAILED, PROGRESS, type IndexBatch, type IndexReply, type IndexRequest, type IndexWorkerData } from './indexBatch';
import { FTS_TABLE } from './schema';
import { INDEX_ROW, indexText } from './search';
import { loadSqlJs } from './sqljs';

/**
 * The index worker (parallelIndex.ts): a database of just the search index, in which the rows a
 * tape sends are indexed on this thread, and whose segments the tape takes when it drains. It
 * indexes in one transaction from drain to drain, so FTS4 writes a segment per megabyte of
 * pending terms instead of one per commit of the tape.
 */
async function main({ state, replies }: IndexWorkerData): Promise<void> {
  const cells = new Int32Array(state);
  const signal = (value: number): void => {
    Atomics.store(cells, DRAINED, value);
    Atomics.notify(cells, DRAINED);
  };
  const answer = (reply: IndexReply, transfer: ArrayBuffer[]): void => {
    replies.postMessage(reply, transfer);
    signal(reply.seq);
  };
  // Once failed, the worker only says so: the tape indexes what it sent on its own thread.
  let failed = false;
  const fail = (): void => {
    failed = true;
    signal(FAILED);
  };
  let SQL: SqlJsStatic;
  try {
    SQL = await loadSqlJs();
  } catch {
    return fail();
  }
  let db = fresh(SQL);
  const decoder = new TextDecoder();
  let inTransaction = false;

  const index = (b: IndexBatch): void => {
    if (!inTransaction) db.db.run('BEGIN');
    inTransaction = true;
    let from = 0;
    b.ids.forEach((id, i) => {
      const payload = JSON.parse(decoder.decode(b.payloads.subarray(from, b.ends[i]))) as JsonObject;
      from = b.ends[i];
      db.put.run([id, Buffer.from(indexText(b.kinds[i] as Kind, b.names[i], payload))]);
    });
    Atomics.add(cells, PROGRESS, 1);
  };

  parentPort!.on('message', (m: IndexRequest) => {
    if (failed) return;
    if (m.type === 'rows') {
      try {
        index(m);
      } catch {
        fail();
      }
      return;
    }
    try {
      if (inTransaction) db.db.run('COMMIT');
      inTransaction = false;
      const image = db.db.export();
      // A new database for the next rows: cheaper than emptying the index of this one.
      db.db.close();
      db = fresh(SQL);
      answer({ seq: m.seq, image }, [image.buffer as ArrayBuffer]);
    } catch {
      fail();
    }
  });
}

interface IndexDb {
  db: Database;
  put: Statement;
}

function fresh(SQL: SqlJsStatic): IndexDb {
  const db = new SQL.Database();
  // The tape's page size, so moved segments have the node size of the tape's own.
  db.run('PRAGMA page_size = 16384; PRAGMA journal_mode = MEMORY; PRAGMA locking_mode = EXCLUSIVE; PRAGMA temp_store = MEMORY');
  db.run(FTS_TABLE);
  return { db, put: db.prepare(INDEX_ROW) };
}

void main(workerData as IndexWorkerData);
