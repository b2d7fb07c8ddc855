import * as assert from 'assert';
import * as fs from 'fs';
import * as net from 'net';
import * as path from 'path';
import { DebugClient } from '@vscode/debugadapter-testsupport';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { ReplayDebugSession, type ReplayCursorAt } from '../../../src/extension/replay/debugSession';
import { replayDocumentPath } from '../../../src/replay/replayDocument';
import { openReplayTape } from '../../../src/replay/replayTape';
import { jsonlLine } from '../../../src/store/jsonl';
import { fingerprint, tempDir } from '../store/helpers';
import { CHILD, FORK, linkedTape, PARENT } from './replayTapes';
import { OpenTape } from '../../../src/agent/session/openTape';

const FIXTURES = path.resolve(__dirname, '../../../../test/fixtures/tapes');
const TWO_REQUESTS = path.join(FIXTURES, 'inspector-two-requests.tape.jsonl');

/** The adapter on a socket in this process, one ReplayDebugSession per connection, as the testsupport client expects. */
async function serve(moves: ReplayCursorAt[]): Promise<{ port: number; close(): Promise<void> }> {
  const server = net.createServer((socket) => {
    const session = new ReplayDebugSession({
      openTape: async (file) => {
        const tape = await openReplayTape(file ?? TWO_REQUESTS);
        return { ...tape, reader: new OpenTape(tape.store).reader };
      },
      cursorMoved: (at) => moves.push(at),
    });
    session.setRunAsServer(true);
    session.start(socket, socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as net.AddressInfo).port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

async function top(dc: DebugClient): Promise<DebugProtocol.StackFrame> {
  return (await dc.stackTraceRequest({ threadId: 1 })).body.stackFrames[0];
}

async function stopAfter(dc: DebugClient, request: Promise<unknown>): Promise<DebugProtocol.StoppedEvent> {
  const [, stopped] = await Promise.all([request, dc.waitForEvent('stopped')]);
  return stopped as DebugProtocol.StoppedEvent;
}

async function scope(dc: DebugClient, frameId: number, name: string): Promise<DebugProtocol.Variable[]> {
  const scopes = (await dc.scopesRequest({ frameId })).body.scopes;
  const s = scopes.find((x) => x.name === name);
  assert.ok(s, `scope ${name} among ${scopes.map((x) => x.name).join(', ')}`);
  return (await dc.variablesRequest({ variablesReference: s.variablesReference })).body.variables;
}

async function children(dc: DebugClient, v: DebugProtocol.Variable | undefined): Promise<DebugProtocol.Variable[]> {
  assert.ok(v && v.variablesReference > 0, `${v?.name} is expandable`);
  return (await dc.variablesRequest({ variablesReference: v.variablesReference })).body.variables;
}

const named = (vars: readonly DebugProtocol.Variable[], name: string): DebugProtocol.Variable | undefined => vars.find((v) => v.name === name);

describe('replay debug adapter (DAP over a socket)', function () {
  this.timeout(20_000);
  let dc: DebugClient;
  let server: { port: number; close(): Promise<void> };
  const moves: ReplayCursorAt[] = [];

  beforeEach(async () => {
    moves.length = 0;
    server = await serve(moves);
    dc = new DebugClient('node', '', 'agent-tape');
    await dc.start(server.port);
  });

  afterEach(async () => {
    await dc.stop();
    await server.close();
  });

  it('stops on entry, steps, steps back, runs to an anchor and back, and shows the folded messages there', async () => {
    const init = await dc.initializeRequest();
    assert.strictEqual(init.body?.supportsStepBack, true);
    assert.strictEqual(init.body?.supportsFunctionBreakpoints, true);
    assert.strictEqual(init.body?.supportsRestartRequest, true);
    const [, , entry] = await Promise.all([dc.configurationSequence(), dc.launch({ tape: TWO_REQUESTS }), dc.waitForEvent('stopped')]);
    assert.strictEqual(entry.body.reason, 'entry');
    const first = await top(dc);
    assert.strictEqual(first.line, 1);
    assert.strictEqual(first.source?.path, replayDocumentPath(TWO_REQUESTS, 'inspector-sample'));
    assert.match(first.name, /^inspector-sample #1 anchor session\/start$/);

    assert.strictEqual((await stopAfter(dc, dc.nextRequest({ threadId: 1 }))).body.reason, 'step');
    assert.strictEqual((await top(dc)).line, 2);
    await stopAfter(dc, dc.stepBackRequest({ threadId: 1 }));
    assert.strictEqual((await top(dc)).line, 1);

    const fbp = await dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'anchor' }, { name: 'a*b' }] });
    assert.deepStrictEqual(
      fbp.body.breakpoints.map((b) => b.verified),
      [true, false],
    );
    const hit = await stopAfter(dc, dc.continueRequest({ threadId: 1 }));
    assert.strictEqual(hit.body.reason, 'function breakpoint');
    const frame = await top(dc);
    assert.strictEqual(frame.line, 14);
    assert.match(frame.name, /anchor handoff\/notes-read/);

    const view = await scope(dc, frame.id, 'View');
    assert.strictEqual(named(view, 'headEntryId')?.value, '14');
    const messages = await children(dc, named(view, 'messages'));
    assert.deepStrictEqual(
      messages.map((m) => m.value.replace(/:.*/, '')),
      ['#4 user sent', '#10 assistant sent'],
    );
    assert.match(messages[0].value, /Read notes\.md and tell me what it says <script>alert\(1\)<\/script>/, 'tape text is shown as it is, as text');
    const fields = await children(dc, messages[1]);
    assert.strictEqual(named(fields, 'orderSeq')?.value, '2');
    assert.strictEqual(named(fields, 'role')?.value, '"assistant"');

    const entryVars = await scope(dc, frame.id, 'Entry');
    assert.strictEqual(named(entryVars, 'name')?.value, '"handoff/notes-read"');
    const context = await scope(dc, frame.id, 'Context');
    assert.strictEqual(named(context, 'anchorEntryId')?.value, '14', 'the handoff is the anchor in force');
    const contextMessages = await children(dc, named(context, 'messages'));
    assert.deepStrictEqual(
      contextMessages.map((m) => m.value.split(':')[0]),
      ['system #2', 'user (synthetic)'],
    );
    const projections = await scope(dc, frame.id, 'Projections');
    assert.ok(named(projections, 'toolStats'), `projections: ${projections.map((p) => p.name).join(', ')}`);

    const back = await stopAfter(dc, dc.customRequest('reverseContinue', { threadId: 1 }));
    assert.strictEqual(back.body.reason, 'function breakpoint', 'session/start is an anchor too');
    assert.strictEqual((await top(dc)).line, 1);

    await dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'view/assembled' }] });
    await stopAfter(dc, dc.continueRequest({ threadId: 1 }));
    const onManifest = await top(dc);
    assert.strictEqual(onManifest.line, 5);
    const manifest = await scope(dc, onManifest.id, 'Manifest');
    assert.strictEqual(named(manifest, 'manifestHash')?.value, '"matches the manifest"');
    assert.strictEqual(named(manifest, 'latestEntryId')?.value, '4');

    await dc.setFunctionBreakpointsRequest({ breakpoints: [] });
    const lines = await dc.setBreakpointsRequest({
      source: { path: replayDocumentPath(TWO_REQUESTS, 'inspector-sample') },
      breakpoints: [{ line: 20 }, { line: 99 }],
    });
    assert.deepStrictEqual(
      lines.body.breakpoints.map((b) => b.verified),
      [true, false],
    );
    const line = await stopAfter(dc, dc.continueRequest({ threadId: 1 }));
    assert.strictEqual(line.body.reason, 'breakpoint');
    assert.strictEqual((await top(dc)).line, 20);

    await stopAfter(dc, dc.customRequest('restart'));
    assert.strictEqual((await top(dc)).line, 1);

    const source = await dc.sourceRequest({ sourceReference: 0, source: { path: replayDocumentPath(TWO_REQUESTS, 'inspector-sample') } });
    const doc = source.body.content.split('\n');
    assert.strictEqual(doc.length, 25, 'one line per entry');
    assert.match(doc[13], /^#14 anchor handoff\/notes-read: /);

    assert.deepStrictEqual(
      moves.map((m) => m.entryId),
      [1, 2, 1, 14, 1, 5, 20, 1],
      'every stop tells where the cursor is',
    );
    assert.ok(moves.every((m) => m.tapeFile === TWO_REQUESTS && m.sessionId === 'inspector-sample'));
  });

  it('steps into a linked subagent and a merged fork, shows the lineage as the call stack, and steps out', async () => {
    const dir = tempDir();
    const tape = path.join(dir, 'linked.tape.jsonl');
    fs.writeFileSync(
      tape,
      linkedTape()
        .map((e) => jsonlLine({ ...e, payload: JSON.stringify(e.payload), meta: JSON.stringify(e.meta) }))
        .join(''),
    );
    await dc.initializeRequest();
    await Promise.all([dc.configurationSequence(), dc.launch({ tape, session: PARENT }), dc.waitForEvent('stopped')]);
    await dc.setBreakpointsRequest({ source: { path: replayDocumentPath(tape, PARENT) }, breakpoints: [{ line: 6 }] });
    await stopAfter(dc, dc.continueRequest({ threadId: 1 }));
    assert.strictEqual((await top(dc)).line, 6);

    const into = await stopAfter(dc, dc.stepInRequest({ threadId: 1 }));
    assert.strictEqual(into.body.description, `into subagent ${CHILD}`);
    const stack = (await dc.stackTraceRequest({ threadId: 1 })).body.stackFrames;
    assert.deepStrictEqual(
      stack.map((f) => [f.source?.path, f.line]),
      [
        [replayDocumentPath(tape, CHILD), 1],
        [replayDocumentPath(tape, PARENT), 6],
      ],
    );
    await stopAfter(dc, dc.nextRequest({ threadId: 1 }));
    await stopAfter(dc, dc.nextRequest({ threadId: 1 }));
    const childView = await scope(dc, (await top(dc)).id, 'View');
    assert.strictEqual((await children(dc, named(childView, 'messages'))).length, 2);
    const parentView = await scope(dc, stack[1].id, 'View');
    assert.strictEqual(named(parentView, 'headEntryId')?.value, '6', "the parent frame's own state at its link");

    await stopAfter(dc, dc.stepOutRequest({ threadId: 1 }));
    assert.deepStrictEqual(
      (await dc.stackTraceRequest({ threadId: 1 })).body.stackFrames.map((f) => f.line),
      [6],
    );

    for (let i = 0; i < 3; i++) await stopAfter(dc, dc.nextRequest({ threadId: 1 }));
    await stopAfter(dc, dc.stepInRequest({ threadId: 1 }));
    const forkStack = (await dc.stackTraceRequest({ threadId: 1 })).body.stackFrames;
    assert.deepStrictEqual(
      forkStack.map((f) => [f.source?.path, f.line]),
      [
        [replayDocumentPath(tape, FORK), 5],
        [replayDocumentPath(tape, PARENT), 9],
      ],
    );
    assert.deepStrictEqual(moves.slice(-1), [{ tapeFile: tape, sessionId: FORK, entryId: 5 }]);
    await stopAfter(dc, dc.stepOutRequest({ threadId: 1 }));
    assert.strictEqual((await top(dc)).line, 9);
  });

  it('refuses a missing tape, an unknown session and a damaged file with a clear error, and writes nothing', async () => {
    const dir = tempDir();
    await dc.initializeRequest();
    await assert.rejects(dc.launch({ tape: path.join(dir, 'missing.tape.sqlite') }), /Cannot replay: .*missing\.tape\.sqlite: does not exist/);
    await assert.rejects(dc.launch({ tape: TWO_REQUESTS, session: 'nope' }), /Cannot replay: the tape has no session "nope"; it has "inspector-sample"/);
    const damaged = path.join(dir, 'damaged.tape.jsonl');
    fs.writeFileSync(damaged, `${fs.readFileSync(TWO_REQUESTS, 'utf8').split('\n')[0]}\n{"sessionId": 3\n`);
    await assert.rejects(dc.launch({ tape: damaged }), /Cannot replay: .*damaged\.tape\.jsonl:2/);
    await assert.rejects(dc.launch({ tape: path.join(dir, 'notes.txt') }), /is not a tape file name/);

    const sqlite = path.join(dir, 'copy.tape.sqlite');
    fs.copyFileSync(path.join(FIXTURES, 'schema-v1.tape.sqlite'), sqlite);
    fs.copyFileSync(path.join(FIXTURES, 'schema-v1.tape.sqlite.tapelog'), `${sqlite}.tapelog`);
    const before = fingerprint(sqlite);
    const files = fs.readdirSync(dir).sort();
    await assert.rejects(dc.launch({ tape: sqlite, session: 'absent' }), /no session "absent"/);
    assert.deepStrictEqual(fingerprint(sqlite), before);
    assert.deepStrictEqual(fs.readdirSync(dir).sort(), files, 'no lock, journal or temp file');
  });
});
