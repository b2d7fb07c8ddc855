import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { TapeStore } from '../../../src/store/tapeStore';
import { CLAUDE_SESSION, CODING_SESSION, DEMO_DIR, DISCARDED_FORK_ID, MERGED_FORK_ID, SAMPLE_NAME, writeDemoTape } from '../../support/demoTapes';
import { cli } from '../cli/build';

/** A session as kind/name per entry, with the random part of a subagent's id left out. */
type Shape = Record<string, string[]>;

const stableId = (sessionId: string): string => sessionId.replace(/::subagent::[^:]+$/, '::subagent::*');

async function shapeOf(file: string): Promise<Shape> {
  const store = await TapeStore.open(file, { readOnly: true });
  try {
    const shape: Shape = {};
    for (const { sessionId } of store.sessions()) shape[stableId(sessionId)] = store.rawEntries(sessionId).map((e) => `${e.kind} ${e.name}`);
    return shape;
  } finally {
    await store.close();
  }
}

const COMMITTED = path.join(DEMO_DIR, 'samples', SAMPLE_NAME);
const FORK_MERGED = `${CODING_SESSION}::fork::${MERGED_FORK_ID}`;
const FORK_DISCARDED = `${CODING_SESSION}::fork::${DISCARDED_FORK_ID}`;
const SUBAGENT = `${CODING_SESSION}::subagent::*`;

describe('the demo sample tape (demo/samples)', function () {
  this.timeout(60_000);
  let dir: string;
  let file: string;
  let shape: Shape;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-demo-test-'));
    file = await writeDemoTape(dir);
    shape = await shapeOf(file);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is recorded into the folder asked for, one small file, and the demo workspace is left as it was', () => {
    assert.deepStrictEqual(fs.readdirSync(dir), [SAMPLE_NAME]);
    assert.ok(fs.statSync(file).size < 1 << 20, `${fs.statSync(file).size} bytes`);
    assert.match(fs.readFileSync(path.join(DEMO_DIR, 'src', 'greet.ts'), 'utf8'), /return `Hello, \$\{name\}!`;/);
  });

  it('agent-tape verify passes on it: every recorded request matches, a merged one is verified in its fork', async () => {
    const r = await cli('verify', file);
    assert.strictEqual(r.code, 0, r.out + r.err);
    assert.match(r.out, /^verified: 15 requests in 5 sessions: 14 match, 0 mismatch, 0 cannot rebuild, 1 merged, 0 integrity problems$/m);
  });

  it('holds the sessions the walkthrough shows: the coding session, its merged and discarded forks, its subagent, an ingested Claude Code session', () => {
    assert.deepStrictEqual(Object.keys(shape).sort(), [CLAUDE_SESSION, CODING_SESSION, FORK_MERGED, FORK_DISCARDED, SUBAGENT].sort());
  });

  it('the coding session has tool calls, an edit, a command, an auto-compaction, a handoff, a subagent link, a merge and a discard', () => {
    const names = shape[CODING_SESSION];
    for (const n of [
      'tool_call read_file',
      'tool_result read_file',
      'tool_call apply_edit',
      'tool_result apply_edit',
      'tool_call run_command',
      'tool_result run_command',
      'anchor compaction/auto',
      'tool_call tape_handoff',
      'anchor handoff/tests-next',
      'tool_call run_subagent',
      'event subagent/linked',
      'event fork/merge',
      'event fork/discard',
      'event view/assembled',
    ])
      assert.ok(names.includes(n), `${CODING_SESSION} has ${n}`);
    // The merged fork's answer came back to the parent before the merge receipt.
    assert.deepStrictEqual(names.slice(-2), ['event fork/merge', 'event fork/discard']);
    assert.strictEqual(shape[FORK_MERGED][1], 'anchor fork/start');
    assert.strictEqual(shape[FORK_DISCARDED][1], 'anchor fork/start');
    assert.strictEqual(shape[SUBAGENT][1], 'anchor subagent/start');
    assert.ok(shape[SUBAGENT].includes('tool_call list_dir'));
  });

  it('the ingested Claude Code session has its messages, a tool call with its result, and a provider attempt', () => {
    const names = shape[CLAUDE_SESSION];
    for (const n of ['message message/user', 'message message/assistant', 'tool_call Read', 'tool_result Read', 'tool_call Bash', 'tool_result Bash', 'event provider/attempt'])
      assert.ok(names.includes(n), `${CLAUDE_SESSION} has ${n}`);
  });

  it('the committed sample is what the script records, in meaning: the same sessions with the same entries (ids and times may differ)', async () => {
    assert.deepStrictEqual(await shapeOf(COMMITTED), shape, 'demo/samples is out of date: run `npm run demo-tapes`');
  });
});
