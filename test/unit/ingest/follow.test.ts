import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { FollowedTranscripts, followTranscripts } from '../../../src/ingest/follow';
import type { IngestReport } from '../../../src/ingest/ingest';
import { ingestFile } from '../../../src/ingest/ingest';
import { TapeStore } from '../../../src/store/tapeStore';
import { CC_SESSION, claudeCodeRecords, claudeCodeSubagent, jsonl } from './fixtures';
import { JSONL_SESSION, jsonl as geminiJsonl, jsonlRecords } from './geminiFixtures';

// The module itself: `import * as` gives a copy whose properties are getters.
const nodeFs = require('fs') as { readSync: typeof fs.readSync };

/** The bytes fs.readSync returns while `f` runs: what an ingest reads of its files. */
async function bytesRead<T>(f: () => Promise<T>): Promise<{ value: T; bytes: number }> {
  const real = nodeFs.readSync;
  let bytes = 0;
  nodeFs.readSync = ((...args: Parameters<typeof fs.readSync>) => {
    const n = real(...args);
    bytes += n;
    return n;
  }) as typeof fs.readSync;
  try {
    return { value: await f(), bytes };
  } finally {
    nodeFs.readSync = real;
  }
}

/** The tape as entries without their time: entries without a source time (links) get the time they are written. */
const tapeOf = (store: TapeStore) =>
  store
    .sessions()
    .map((s) => s.sessionId)
    .sort()
    .map((id) => store.entries(id).map((e) => [e.sessionId, e.entryId, e.kind, e.name, e.provenanceKey, e.payload]));

describe('following a transcript', function () {
  this.timeout(20_000);
  let dir: string;
  let file: string;
  let store: TapeStore;
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-follow-'));
    file = path.join(dir, `${CC_SESSION}.jsonl`);
    store = await TapeStore.inMemory();
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reads only what each growth added (a torn line again once), and the tape equals a one-shot ingest of the final file', async () => {
    const records = claudeCodeRecords();
    const followed = new FollowedTranscripts();
    const torn = JSON.stringify(records[13]).slice(0, 30);
    fs.writeFileSync(file, jsonl(records.slice(0, 2)));
    let read = await bytesRead(() => followed.ingest(store, file));
    assert.strictEqual(read.bytes, fs.statSync(file).size, 'the first run reads the whole file');
    // Each step: the main file's new part (and a subagent file appearing with the Task call).
    const steps: (() => number)[] = [
      () => (fs.appendFileSync(file, jsonl(records.slice(2, 8))), jsonl(records.slice(2, 8)).length),
      () => {
        const sub = path.join(dir, CC_SESSION, 'subagents');
        fs.mkdirSync(sub, { recursive: true });
        fs.writeFileSync(path.join(sub, 'agent-abc.jsonl'), jsonl(claudeCodeSubagent()));
        // Ends between a compaction boundary and its summary, which is half written.
        fs.appendFileSync(file, jsonl(records.slice(8, 13)) + torn);
        return jsonl(records.slice(8, 13)).length + torn.length + jsonl(claudeCodeSubagent()).length;
      },
      () => (fs.appendFileSync(file, jsonl(records.slice(13)).slice(torn.length)), jsonl(records.slice(13)).length),
    ];
    const reports = [read.value];
    for (const grow of steps) {
      const expected = grow();
      read = await bytesRead(() => followed.ingest(store, file));
      assert.strictEqual(read.bytes, expected, `run ${reports.length + 1} reads only the new bytes`);
      reports.push(read.value);
    }
    assert.deepStrictEqual(
      reports.map((r) => r.tornLastLine),
      [false, false, true, false],
    );
    assert.ok(reports.every((r) => r.appended > 0));

    const fresh = await TapeStore.inMemory();
    try {
      await ingestFile(fresh, file);
      assert.deepStrictEqual(tapeOf(store), tapeOf(fresh));
    } finally {
      await fresh.close();
    }
    assert.strictEqual((await followed.ingest(store, file)).appended, 0);
  });

  it('reads a file again from its start when it shrank or was replaced; what is on the tape is not written twice', async () => {
    const followed = new FollowedTranscripts();
    fs.writeFileSync(file, jsonl(claudeCodeRecords()));
    await followed.ingest(store, file);
    const head = store.headEntryId(`claude-code:${CC_SESSION}`);
    const replacement = `${file}.new`;
    fs.writeFileSync(replacement, jsonl(claudeCodeRecords()));
    fs.renameSync(replacement, file);
    const replaced = await bytesRead(() => followed.ingest(store, file));
    assert.deepStrictEqual([replaced.bytes, replaced.value.appended], [fs.statSync(file).size, 0]);
    fs.writeFileSync(file, jsonl(claudeCodeRecords().slice(0, 8)));
    const shrunk = await bytesRead(() => followed.ingest(store, file));
    assert.deepStrictEqual([shrunk.bytes, shrunk.value.appended], [fs.statSync(file).size, 0]);
    assert.strictEqual(store.headEntryId(`claude-code:${CC_SESSION}`), head);
  });

  it('a followed folder goes on with each source as its walk told it: a renamed Gemini log is Gemini CLI’s, not a Claude Code transcript', async () => {
    const log = path.join(dir, 'from-ana.jsonl');
    fs.writeFileSync(log, geminiJsonl(jsonlRecords()));
    const stop = new AbortController();
    const reports: IngestReport[] = [];
    await followTranscripts(store, [dir], undefined, stop.signal, (r) => (reports.push(r), stop.abort()));
    assert.deepStrictEqual(
      reports.map((r) => [r.file, r.format, r.sessions]),
      [[log, 'gemini', [`gemini:${JSONL_SESSION}`]]],
    );
  });
});
