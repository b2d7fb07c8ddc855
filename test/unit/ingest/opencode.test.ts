import { SUBAGENT_LINKED } from '../../../src/tape/entryNames';
import * as assert from 'assert';
import Database from 'better-sqlite3';
import { execFileSync, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ingestFile, ingestionOf } from '../../../src/ingest/ingest';
import { opencode } from '../../../src/ingest/opencode/opencode';
import { opencodeDataDir, opencodeDiscovery } from '../../../src/ingest/opencode/discovery';
import { walCommits, walImage } from '../../../src/ingest/sqliteWal';
import { TapeFileError } from '../../../src/store/errors';
import { loadSqlJs } from '../../../src/store/sqljs';
import { readLinked } from '../../../src/store/subagentLinks';
import { TapeStore } from '../../../src/store/tapeStore';
import { FoldCache } from '../../../src/tape/foldCache';
import { buildCli, CLI } from '../cli/build';
import { CHILD, EMPTY, finishStreaming, OcDatabase, OcStorage, OTHER, PARENT, stepTokens, writeNextTurn, writeSessions, WS } from './opencodeFixture';
import { conversation, usageOf } from './foldedSession';

const parent = `opencode:${PARENT}`;
const child = `opencode:${CHILD}`;
const other = `opencode:${OTHER}`;

/** The conversation a person reads: prompts and answers with text, in order. */
function toolPairs(store: TapeStore, sessionId: string): string[] {
  const view = new FoldCache(store).view(sessionId, { includePending: false });
  return view.toolCalls.map((c) => {
    const result = store.entries(sessionId).find((e) => e.kind === 'tool_result' && e.payload.toolCallId === c.toolCallId);
    assert.ok(view.toolFacts.get(c.messageId)?.results.has(c.toolCallId), `call ${c.toolCallId} has its result`);
    return `${c.toolCallId} ${String(result?.name)} ${String(result?.payload.status)}`;
  });
}

/** The source's own token figures: its step-finish parts, summed, the cache and the reasoning (which opencode counts apart) added back. */
function sourceUsage(sessionId: string) {
  const steps = stepTokens.get(sessionId) ?? [];
  return {
    attempts: steps.length,
    // opencode's input leaves the cache out and its output the reasoning; the tape's counts them.
    inputTokens: steps.reduce((n, t) => n + t.input + t.cache.read + t.cache.write, 0),
    outputTokens: steps.reduce((n, t) => n + t.output + t.reasoning, 0),
    cachedTokens: steps.reduce((n, t) => n + t.cache.read, 0),
  };
}

const metaOf = (store: TapeStore, sessionId: string) =>
  store
    .entries(sessionId)
    .filter((e) => e.name === 'session/meta')
    .at(-1)?.payload.data;

describe('opencode ingest', function () {
  this.timeout(30_000);
  let dir: string;
  let store: TapeStore;
  before(() => loadSqlJs());
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-opencode-'));
    store = await TapeStore.inMemory();
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A database in WAL mode with everything still in its log (no checkpoint ran). */
  function openDb(): OcDatabase {
    const db = new OcDatabase(path.join(dir, 'opencode.db'));
    writeSessions(db);
    return db;
  }

  /** The checks both layouts pass: what each session holds once ingested. */
  function assertMapped(source: string): void {
    assert.deepStrictEqual(conversation(store, parent), [
      'user: Fix the failing test',
      "assistant: I'll look at the tests.",
      'assistant: Fixed.',
      'user: Now add docs',
      'assistant: Done with docs.',
    ]);
    assert.deepStrictEqual(toolPairs(store, parent), ['toolu_1 read ok', 'toolu_2 bash error', 'toolu_3 task ok']);
    const entries = store.entries(parent);
    const bash = entries.find((e) => e.kind === 'tool_result' && e.payload.toolCallId === 'toolu_2');
    assert.deepStrictEqual([bash?.payload.output, bash?.createdAt], ['exit 1', 2007]);
    // Reasoning and opencode's own prompt text are events, out of the transcript.
    assert.deepStrictEqual(
      entries.filter((e) => e.name === 'opencode/reasoning').map((e) => e.payload.data),
      [{ messageId: 'msg_02', text: 'Look at the test first.' }],
    );
    assert.strictEqual(entries.filter((e) => e.name === 'opencode/text').length, 1);
    assert.deepStrictEqual(
      entries.filter((e) => e.name === 'opencode/patch').map((e) => (e.payload.data as { files: string[] }).files),
      [[`${WS}/a.ts`]],
    );
    // The compaction's summary is an anchor over the messages before its request.
    const anchor = entries.find((e) => e.kind === 'anchor' && e.name.startsWith('compaction/'));
    assert.strictEqual(anchor?.name, 'compaction/manual');
    const state = anchor?.payload.state as { summary?: string; cursorOrderSeq?: number } | undefined;
    assert.deepStrictEqual([state?.summary, state?.cursorOrderSeq], ['Summary: the test is fixed.', 4000]);
    // Every step is a request with opencode's figures; the summary's step was billed too.
    assert.deepStrictEqual(usageOf(store, parent), sourceUsage(PARENT));
    assert.deepStrictEqual(usageOf(store, child), sourceUsage(CHILD));
    assert.deepStrictEqual(usageOf(store, other), sourceUsage(OTHER));
    assert.deepStrictEqual(metaOf(store, parent), {
      agent: 'opencode',
      model: 'claude-sonnet-4-5',
      cwd: WS,
      source,
      title: 'Fix the failing test',
      provider: 'anthropic',
    });
    assert.deepStrictEqual(metaOf(store, child), {
      agent: 'opencode',
      model: 'claude-sonnet-4-5',
      cwd: WS,
      source,
      title: 'Investigate (@general subagent)',
      parentSessionId: parent,
      provider: 'anthropic',
    });
    // A session opencode has not titled yet is titled by its first prompt.
    assert.strictEqual((metaOf(store, other) as { title?: string }).title, 'Elsewhere');
    // The subagent is a linked child, linked right after the task call that ran it.
    const linkAt = entries.findIndex((e) => e.name === 'subagent/linked');
    assert.deepStrictEqual(entries[linkAt].payload.data, {
      childSessionId: child,
      toolCallId: 'toolu_3',
      messageId: 'msg_03',
      childHeadEntryId: store.headEntryId(child),
      childHeadHash: (entries[linkAt].payload.data as { childHeadHash: string }).childHeadHash,
      childStartedAt: store.requireEntry(child, 1).createdAt,
    });
    assert.strictEqual(entries[linkAt - 1].kind, 'tool_result');
    assert.deepStrictEqual(readLinked(store, parent, child).frozenHead, store.headEntryId(child));
    assert.deepStrictEqual(conversation(store, child), ['user: Investigate', 'assistant: Found it.']);
  }

  const expectedSkips = {
    'assistant/in-progress': 1,
    'part/hologram': 1,
    'part/step-start': 2,
    'session/without-messages': 1,
    'tool/running': 1,
  };

  describe('the database', () => {
    it('maps every session of every project, counting what becomes no entry; a second run appends nothing', async () => {
      const db = openDb();
      try {
        const file = db.file;
        const report = await ingestFile(store, file);
        assert.strictEqual(report.format, 'opencode');
        assert.deepStrictEqual([...report.sessions].sort(), [child, other, parent].sort());
        assert.ok(!report.sessions.includes(`opencode:${EMPTY}`));
        assert.deepStrictEqual(report.skipped, expectedSkips);
        assertMapped(file);
        const again = await ingestFile(store, file);
        assert.strictEqual(again.appended, 0);
      } finally {
        db.close();
      }
    });

    it('reads what is only in the write-ahead log, never checkpointed, and opencode keeps writing meanwhile', async () => {
      const db = openDb();
      try {
        const main = fs.readFileSync(db.file);
        assert.ok(!main.includes('Fix the failing test'), 'the conversation is only in the log');
        assert.ok(fs.statSync(`${db.file}-wal`).size > 0);
        await ingestFile(store, db.file);
        assert.strictEqual(conversation(store, parent)[0], 'user: Fix the failing test');
        // The file opencode writes is left as it was: no byte changed, no checkpoint ran.
        assert.ok(fs.readFileSync(db.file).equals(main));
        db.db.prepare("UPDATE message SET data = json_set(data, '$.agent', 'build') WHERE id = 'msg_01'").run();
        writeNextTurn(db);
        assert.ok((await ingestFile(store, db.file)).appended > 0, 'the newest commit is seen while the connection is open');
        assert.deepStrictEqual(conversation(store, parent).slice(-2), ['user: And a changelog entry', 'assistant: Added.']);
      } finally {
        db.close();
      }
    });

    it('a grown database appends exactly its new records: a finished step, then a new turn', async () => {
      const db = openDb();
      try {
        await ingestFile(store, db.file);
        const before = store.headEntryId(parent);
        finishStreaming(db);
        const finished = await ingestFile(store, db.file);
        // The message, its tool call and result, its request; the link is the same child head.
        assert.strictEqual(finished.appended, 4);
        assert.deepStrictEqual(
          store
            .entries(parent)
            .filter((e) => e.entryId > before)
            .map((e) => (e.kind === 'event' ? e.name : `${e.kind}`)),
          ['message', 'tool_call', 'tool_result', 'provider/attempt'],
        );
        assert.strictEqual(conversation(store, parent).at(-1), 'assistant: Writing the changelog. Done.');
        assert.ok(!('assistant/in-progress' in finished.skipped) && !('tool/running' in finished.skipped));
        writeNextTurn(db);
        const next = await ingestFile(store, db.file);
        assert.strictEqual(next.appended, 3, 'a prompt, an answer and its request');
        assert.deepStrictEqual(usageOf(store, parent), sourceUsage(PARENT));
      } finally {
        db.close();
      }
    });

    it('stops at the last whole commit of the log: a transaction cut short or damaged is left for the next run', async () => {
      const db = openDb();
      const walBefore = fs.statSync(`${db.file}-wal`).size;
      db.db.transaction(() => writeNextTurn(db))();
      const wal = fs.readFileSync(`${db.file}-wal`);
      const main = fs.readFileSync(db.file);
      db.close();
      const copy = (name: string, log: Buffer): string => {
        const d = path.join(dir, name);
        fs.mkdirSync(d);
        fs.writeFileSync(path.join(d, 'opencode.db'), main);
        fs.writeFileSync(path.join(d, 'opencode.db-wal'), log);
        return path.join(d, 'opencode.db');
      };
      const whole = walCommits(wal);
      const cut = walCommits(wal.subarray(0, walBefore + 1000));
      assert.ok(whole !== null && cut !== null && cut.frames < whole.frames);
      const flipped = Buffer.from(wal);
      flipped[wal.length - 10] ^= 0xff;
      for (const log of [wal.subarray(0, wal.length - 1), flipped, wal.subarray(0, walBefore + 1000)]) {
        const s = await TapeStore.inMemory();
        try {
          await ingestFile(s, copy(`cut-${log.length}-${log[log.length - 10]}`, log));
          assert.strictEqual(conversation(s, parent).at(-1), 'assistant: Done with docs.', 'the last transaction is not seen');
        } finally {
          await s.close();
        }
      }
      await ingestFile(store, copy('whole', wal));
      assert.strictEqual(conversation(store, parent).at(-1), 'assistant: Added.');
    });

    it('a log restarted after a checkpoint: the older frames past its end are not laid over the database', async () => {
      const db = openDb();
      try {
        db.checkpoint('RESTART');
        writeNextTurn(db);
        const wal = fs.readFileSync(`${db.file}-wal`);
        const commits = walCommits(wal);
        assert.ok(commits !== null && 32 + commits.frames * (24 + commits.pageSize) < wal.length, 'old frames remain after the new ones');
        await ingestFile(store, db.file);
        const count = db.db.prepare('SELECT count(*) AS n FROM message').get() as { n: number };
        const SQL = await loadSqlJs();
        const image = new SQL.Database(walImage(fs.readFileSync(db.file), wal, db.file));
        try {
          assert.strictEqual(image.exec('SELECT count(*) FROM message')[0].values[0][0], count.n);
          assert.strictEqual(image.exec('PRAGMA integrity_check')[0].values[0][0], 'ok');
        } finally {
          image.close();
        }
        assert.strictEqual(conversation(store, parent).at(-1), 'assistant: Added.');
      } finally {
        db.close();
      }
    });

    it('a database checkpointed and closed (no log) reads the same', async () => {
      const db = openDb();
      db.checkpoint();
      db.close();
      assert.ok(!fs.existsSync(`${db.file}-wal`) || fs.statSync(`${db.file}-wal`).size === 0);
      await ingestFile(store, db.file);
      assertMapped(db.file);
    });

    it('a damaged database, or a file that is no database, is a TapeFileError naming it; the tape is unchanged', async () => {
      const db = openDb();
      db.checkpoint();
      db.close();
      const bytes = fs.readFileSync(db.file);
      const damaged = path.join(dir, 'damaged', 'opencode.db');
      fs.mkdirSync(path.dirname(damaged));
      // The header stays, the pages after the first are noise.
      fs.writeFileSync(damaged, Buffer.concat([bytes.subarray(0, 4096), Buffer.alloc(bytes.length - 4096, 0x5a)]));
      await assert.rejects(ingestFile(store, damaged), (e: Error) => e instanceof TapeFileError && e.message.startsWith(`${damaged}: `));
      const text = path.join(dir, 'text', 'opencode.db');
      fs.mkdirSync(path.dirname(text));
      fs.writeFileSync(text, 'not a database at all');
      await assert.rejects(ingestFile(store, text), (e: Error) => e instanceof TapeFileError && e.message === `${text}: is not a SQLite database (bad header)`);
      const empty = path.join(dir, 'empty', 'opencode.db');
      fs.mkdirSync(path.dirname(empty));
      const notes = new Database(empty);
      notes.exec('CREATE TABLE notes (a)');
      notes.close();
      await assert.rejects(
        ingestFile(store, empty),
        (e: Error) => e instanceof TapeFileError && /is a SQLite database but not opencode's database/.test(e.message),
      );
      assert.deepStrictEqual(store.sessions(), []);
    });

    it('subagent links: a self-parent or a cycle is refused and counted; a nested tree ingested again unchanged appends nothing', async () => {
      const db = new OcDatabase(path.join(dir, 'opencode.db'));
      db.project('p_app', WS);
      // ses_1 > ses_2 > ses_3 nested (the grandchild's id after the child's); ses_4 its own parent; ses_5 and ses_6 each other's.
      const parents: [string, string | undefined][] = [
        ['ses_1', undefined],
        ['ses_2', 'ses_1'],
        ['ses_3', 'ses_2'],
        ['ses_4', 'ses_4'],
        ['ses_5', 'ses_6'],
        ['ses_6', 'ses_5'],
      ];
      for (const [id, parentId] of parents) {
        db.session({ id, projectId: 'p_app', parentId, directory: WS, title: id, created: 100 });
        db.message(id, `msg_${id}`, { role: 'user', time: { created: 100 } });
        db.part(id, `msg_${id}`, `prt_${id}`, { type: 'text', text: `hi ${id}` });
      }
      db.checkpoint();
      db.close();
      const first = await ingestFile(store, db.file);
      // Both links of the cycle: neither is the parent more than the other.
      assert.deepStrictEqual([first.skipped['subagent/self-link'], first.skipped['subagent/cycle']], [1, 2]);
      const links = (s: string) =>
        store
          .entries(`opencode:${s}`, { kind: 'event', name: SUBAGENT_LINKED })
          .map((e) => `${s} > ${(e.payload.data as { childSessionId: string }).childSessionId}`);
      assert.deepStrictEqual(
        parents.flatMap(([id]) => links(id)),
        ['ses_1 > opencode:ses_2', 'ses_2 > opencode:ses_3'],
      );
      const entryCount = () => store.sessions().reduce((n, s) => n + s.entryCount, 0);
      const before = entryCount();
      const again = await ingestFile(store, db.file);
      assert.deepStrictEqual([again.appended, entryCount()], [0, before]);
      // The links freeze each child whole: the grandchild's head, not the one it had before it was ingested.
      assert.strictEqual(readLinked(store, `opencode:ses_2`, `opencode:ses_3`).frozenHead, store.headEntryId('opencode:ses_3'));
    });

    /** A database written with sql.js: opencode's tables, then `sql` to make one of them hostile. */
    async function craftedDb(sql: string, name = 'opencode.db'): Promise<string> {
      const SQL = await loadSqlJs();
      const db = new SQL.Database();
      db.run(`CREATE TABLE project (id text PRIMARY KEY, worktree text);
        CREATE TABLE session (id text PRIMARY KEY, project_id text, parent_id text, directory text, title text, time_created integer, time_updated integer);
        CREATE TABLE message (id text PRIMARY KEY, session_id text, time_created integer, data text);
        CREATE TABLE part (id text PRIMARY KEY, message_id text, session_id text, data text);
        ${sql}`);
      const file = path.join(dir, `${Math.random().toString(36).slice(2)}`, name);
      fs.mkdirSync(path.dirname(file));
      fs.writeFileSync(file, db.export());
      db.close();
      return file;
    }

    it('every table read is checked before the first query: a view, a virtual table or a generated column is refused by name', async () => {
      const refusals: [string, string][] = [
        ['DROP TABLE part; CREATE VIEW part AS SELECT 1 AS id, 2 AS message_id, 3 AS session_id, 4 AS data', '`part` is a view, not a table'],
        // SQLite resolves `FROM project` to `PROJECT`: names are compared as SQLite does.
        ["DROP TABLE project; CREATE VIEW PROJECT AS SELECT 'p' AS id, '/' AS worktree", '`project` is a view, not a table'],
        ['DROP TABLE message; CREATE VIRTUAL TABLE message USING fts4(id, session_id, time_created, data)', '`message` is a virtual table, not a table'],
        [
          'DROP TABLE part; CREATE TABLE part (id text, message_id text, session_id text, data text AS (zeroblob(100000000)))',
          '`part` computes `data` when read',
        ],
        ['DROP TABLE session; CREATE TABLE session (id text, title text AS (id) VIRTUAL)', '`session` computes `title` when read'],
        ['DROP TABLE message; CREATE TABLE message (id text, data text)', '`message` has no `session_id` column'],
      ];
      for (const [sql, reason] of refusals) {
        const file = await craftedDb(sql);
        await assert.rejects(ingestFile(store, file), (e: Error) => e instanceof TapeFileError && e.message.startsWith(`${file}: ${reason}`), sql);
      }
      // A database without `project` is still read: its sessions have no worktree.
      const plain = await craftedDb(`DROP TABLE project; INSERT INTO session (id) VALUES ('ses_1');
        INSERT INTO message VALUES ('msg_1', 'ses_1', 1, '{"role":"user","time":{"created":1}}');
        INSERT INTO part VALUES ('prt_1', 'msg_1', 'ses_1', '{"type":"text","text":"hi"}')`);
      assert.deepStrictEqual((await ingestFile(store, plain)).sessions, ['opencode:ses_1']);
      assert.deepStrictEqual(conversation(store, 'opencode:ses_1'), ['user: hi']);
    });

    it('agent-tape ingest refuses a database whose `project` is a recursive view at once, as a damaged source (exit 2)', async () => {
      await buildCli();
      const file = await craftedDb(
        "DROP TABLE project; CREATE VIEW project AS WITH RECURSIVE r(id, worktree) AS (SELECT 1, 'w' UNION ALL SELECT id + 1, worktree FROM r) SELECT id, worktree FROM r",
      );
      const tape = path.join(dir, 'out.tape.sqlite');
      // Unchecked, the view runs until memory is gone: the bound only keeps this test from doing the same.
      const r = spawnSync(process.execPath, [CLI, 'ingest', file, tape], { encoding: 'utf8', timeout: 20_000 });
      assert.deepStrictEqual([r.status, r.stderr], [2, `agent-tape: ${file}: \`project\` is a view, not a table; only plain tables are read\n`]);
    });

    it('a symbolic link to /dev/zero or a FIFO named opencode.db is refused at once', async function () {
      if (process.platform === 'win32') this.skip();
      const zero = path.join(dir, 'z', 'opencode.db');
      fs.mkdirSync(path.dirname(zero));
      fs.symlinkSync('/dev/zero', zero);
      await assert.rejects(ingestFile(store, zero), (e: Error) => e instanceof TapeFileError && /is a character device, not a regular file/.test(e.message));
      const fifo = path.join(dir, 'opencode.db');
      execFileSync('mkfifo', [fifo]);
      await assert.rejects(ingestFile(store, fifo), (e: Error) => e instanceof TapeFileError && /is a FIFO \(named pipe\), not a regular file/.test(e.message));
      // A FIFO in the log's place is refused too, not waited on.
      fs.rmSync(fifo);
      const db = openDb();
      db.checkpoint();
      db.close();
      execFileSync('mkfifo', [`${db.file}-wal`]);
      await assert.rejects(ingestFile(store, db.file), (e: Error) => e instanceof TapeFileError && /opencode\.db-wal: is a FIFO/.test(e.message));
    });
  });

  describe('the storage folder of opencode 1.1', () => {
    const storageDir = (): string => path.join(dir, 'opencode', 'storage');

    it('maps the same sessions from the per-file layout; a second run appends nothing, a grown folder only what is new', async () => {
      const storage = new OcStorage(storageDir());
      writeSessions(storage);
      // Any file of the folder stands for the folder.
      const report = await ingestFile(store, path.join(storageDir(), 'part', 'msg_01', 'prt_01a.json'));
      assert.strictEqual(report.file, storageDir());
      assert.deepStrictEqual(report.skipped, expectedSkips);
      assertMapped(storageDir());
      assert.strictEqual((await ingestFile(store, storageDir())).appended, 0);
      writeNextTurn(storage);
      assert.strictEqual((await ingestFile(store, storageDir())).appended, 3);
    });

    it('a file that cannot be read is counted and the rest are read', async () => {
      const storage = new OcStorage(storageDir());
      writeSessions(storage);
      fs.writeFileSync(path.join(storageDir(), 'message', CHILD, 'msg_b2.json'), '{"role": "assist');
      const report = await ingestFile(store, storageDir());
      assert.strictEqual(report.skipped['unreadable/message'], 1);
      assert.deepStrictEqual(conversation(store, child), ['user: Investigate']);
      assert.strictEqual(conversation(store, parent).length, 5);
    });

    it('a folder with no session folder is not opencode storage', async () => {
      fs.mkdirSync(path.join(storageDir(), 'project'), { recursive: true });
      await assert.rejects(ingestFile(store, storageDir()), (e: Error) => e instanceof TapeFileError && /is not an opencode storage folder/.test(e.message));
    });
  });

  describe('paths and detection', () => {
    it('claims opencode.db, its log and shared memory, and any path in an opencode storage folder', () => {
      assert.strictEqual(opencode.sourceOfPath('/d/opencode.db-wal'), '/d/opencode.db');
      assert.strictEqual(opencode.sourceOfPath('/d/opencode.db-shm'), '/d/opencode.db');
      assert.strictEqual(opencode.sourceOfPath('/d/opencode-dev.db'), '/d/opencode-dev.db');
      assert.strictEqual(opencode.sourceOfPath('/h/.local/share/opencode/storage/part/msg_1/prt_1.json'), '/h/.local/share/opencode/storage');
      assert.strictEqual(opencode.sourceOfPath('/h/.local/share/opencode/storage'), '/h/.local/share/opencode/storage');
      assert.strictEqual(opencode.sourceOfPath('/h/app/storage/session/x.json'), null);
      assert.strictEqual(opencode.sourceOfPath('/h/.local/share/opencode/log/2026.log'), null);
      assert.strictEqual(opencode.sourceOfPath('/d/notopencode.db'), null);
    });

    it('recognizes a renamed database by its tables', async () => {
      const db = openDb();
      db.checkpoint();
      db.close();
      const renamed = path.join(dir, 'backup.sqlite');
      fs.copyFileSync(db.file, renamed);
      assert.strictEqual(ingestionOf(renamed).file, renamed);
      const report = await ingestFile(store, renamed);
      assert.strictEqual(report.format, 'opencode');
      assert.strictEqual(conversation(store, parent).length, 5);
    });
  });

  describe('discovery', () => {
    let home: string;
    const places = (workspace = WS) => ({ workspace, home });
    beforeEach(() => {
      home = path.join(dir, 'home');
      fs.mkdirSync(opencodeDataDir(home), { recursive: true });
    });

    it("lists the database once, by the workspace's newest session, and answers for its changes only in this workspace", () => {
      const db = new OcDatabase(path.join(opencodeDataDir(home), 'opencode.db'));
      try {
        writeSessions(db);
        assert.deepStrictEqual(opencodeDiscovery.discover(places()), [
          // The subagent's session is part of its parent's; the other project's is not listed.
          { format: 'opencode', file: db.file, firstPrompt: 'Fix the failing test', modifiedAt: 9000 },
        ]);
        assert.deepStrictEqual(opencodeDiscovery.discover(places('/w/other')), [
          { format: 'opencode', file: db.file, firstPrompt: 'Elsewhere', modifiedAt: 860 },
        ]);
        assert.deepStrictEqual(opencodeDiscovery.discover(places('/w/none')), []);
        assert.strictEqual(opencodeDiscovery.sourceOf(`${db.file}-wal`, places()), db.file);
        assert.strictEqual(opencodeDiscovery.sourceOf(`${db.file}-wal`, places('/w/none')), null);
        assert.strictEqual(opencodeDiscovery.sourceOf(path.join(opencodeDataDir(home), 'log', 'x.log'), places()), null);
        assert.deepStrictEqual(opencodeDiscovery.roots(places()), [opencodeDataDir(home)]);
        db.session({ id: 'ses_4a1b2c3d4009EEEEEEEEEEEEEE', projectId: 'p_app', directory: `${WS}/sub`, title: 'In a subfolder', created: 20_000 });
        db.message('ses_4a1b2c3d4009EEEEEEEEEEEEEE', 'msg_e1', { role: 'user', time: { created: 20_000 } });
        const [found] = opencodeDiscovery.discover(places());
        assert.deepStrictEqual([found.firstPrompt, found.modifiedAt], ['In a subfolder (and 1 more session of this folder)', 20_000]);
      } finally {
        db.close();
      }
    });

    it('lists the storage folder when there is no database', () => {
      const storage = new OcStorage(path.join(opencodeDataDir(home), 'storage'));
      writeSessions(storage);
      assert.deepStrictEqual(opencodeDiscovery.discover(places()), [
        { format: 'opencode', file: storage.dir, firstPrompt: 'Fix the failing test', modifiedAt: 900 },
      ]);
      assert.strictEqual(opencodeDiscovery.sourceOf(path.join(storage.dir, 'part', 'msg_01', 'prt_01a.json'), places()), storage.dir);
    });
  });

  describe('agent-tape ingest', () => {
    before(() => buildCli());

    it('--from opencode reads the database; without it, the name and then the content tell', () => {
      const db = openDb();
      db.checkpoint();
      db.close();
      const tape = path.join(dir, 'out.tape.sqlite');
      const run = (...args: string[]) => execFileSync(process.execPath, [CLI, 'ingest', ...args, tape, '--json'], { encoding: 'utf8' });
      const first = JSON.parse(run('--from', 'opencode', db.file)) as { sessions: number; appended: number; reports: { format: string; skipped: object }[] };
      assert.deepStrictEqual([first.sessions, first.reports[0].format, first.reports[0].skipped], [3, 'opencode', expectedSkips]);
      assert.ok(first.appended > 0);
      const byName = JSON.parse(run(db.file)) as { appended: number; reports: { format: string }[] };
      assert.deepStrictEqual([byName.appended, byName.reports[0].format], [0, 'opencode']);
      const renamed = path.join(dir, 'copy.bin');
      fs.copyFileSync(db.file, renamed);
      const byContent = JSON.parse(run(renamed)) as { appended: number; reports: { format: string }[] };
      assert.deepStrictEqual([byContent.appended, byContent.reports[0].format], [0, 'opencode']);
    });

    it('in a folder walk a damaged database is reported by name and the storage folder beside it is still ingested', () => {
      const data = path.join(dir, 'share', 'opencode');
      writeSessions(new OcStorage(path.join(data, 'storage')));
      fs.writeFileSync(path.join(data, 'opencode.db'), Buffer.concat([Buffer.from('SQLite format 3\0'), Buffer.alloc(5000, 1)]));
      const tape = path.join(dir, 'walk.tape.sqlite');
      const r = spawnSync(process.execPath, [CLI, 'ingest', data, tape, '--json'], { encoding: 'utf8' });
      const report = JSON.parse(r.stdout) as { sessions: number; failed: { file: string }[] };
      assert.deepStrictEqual([r.status, report.sessions, report.failed.map((f) => f.file)], [1, 3, [path.join(data, 'opencode.db')]]);
    });
  });
});
