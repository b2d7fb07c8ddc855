import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ingestFile } from '../../../src/ingest/ingest';
import { lineageView } from '../../../src/inspector/lineageView';
import { SessionTitles } from '../../../src/inspector/sessionTitles';
import { lineageView as lineageSchema } from '../../../src/protocol/inspector';
import { forkSession } from '../../../src/store/forks';
import { readerOf } from '../../../src/store/lineage';
import { linkSubagent, startSubagent } from '../../../src/store/subagentLinks';
import { TapeStore } from '../../../src/store/tapeStore';
import { CC_SESSION, claudeCodeRecords, writeClaudeCode } from '../ingest/fixtures';
import { message, toolCall } from './helpers';

const P = 'parent';
/** What our run_subagent's child is first told, whatever its task (subagentRunner.ts childPrompt). */
const PREAMBLE = 'You are a subagent: another agent handed you the task below. Work on it with your tools, then answer with what you found or did.';

const lineageOf = (store: TapeStore, sessionId: string) =>
  lineageSchema.parse(lineageView(store, readerOf(store), new SessionTitles(readerOf(store)), sessionId));

/** A parent whose run_subagent call `call-1` started a child with `task`; the child was told the preamble, then the task. */
async function ownSubagent(task: string) {
  const store = await TapeStore.inMemory();
  await store.appendMany(P, [message('m1', 'user', 1, 'tidy the repository'), toolCall('m2', 'call-1', 'run_subagent', { task })]);
  const { childSessionId } = await startSubagent(store, P, { task, tools: ['read_file'], toolCallId: 'call-1' });
  await store.appendMany(childSessionId, [message('c1', 'user', 1, `${PREAMBLE}\n\nTask:\n${task}`), message('c2', 'assistant', 2, 'done')]);
  return { store, childSessionId };
}

/** Claude Code's session fixture with its Task call's input replaced, ingested as the Import command does. */
async function ingestedClaudeCode(input: unknown) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-subagent-tasks-'));
  try {
    const records = claudeCodeRecords().map((r) => {
      const m = (r as { message?: { content?: { type: string; name?: string }[] } }).message;
      const block = m?.content?.[0];
      return block?.type === 'tool_use' && block.name === 'Task' ? { ...r, message: { ...m, content: [{ ...block, input }] } } : r;
    });
    const store = await TapeStore.inMemory();
    await ingestFile(store, writeClaudeCode(dir, records));
    const parent = `claude-code:${CC_SESSION}`;
    return { store, parent, child: `${parent}/agent-abc` };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('inspector: a subagent named by its task in the Lineage view', () => {
  it("our run_subagent's child: its task from its subagent/start anchor, not the preamble it was first told", async () => {
    const { store, childSessionId } = await ownSubagent('count the tests under test/unit');
    const [child] = lineageOf(store, P).children;
    assert.deepStrictEqual(
      [child.sessionId, child.relation, child.title, child.task],
      [childSessionId, 'subagent', 'count the tests under test/unit', 'count the tests under test/unit'],
    );
    // The session's own title would have been the preamble's first line, the same for every subagent.
    assert.match(new SessionTitles(readerOf(store)).title(childSessionId) ?? '', /^You are a subagent/);
    // Seen from the child itself, the chain names it the same way.
    assert.deepStrictEqual(
      lineageOf(store, childSessionId).ancestors.map((a) => [a.relation, a.title]),
      [
        ['root', 'tidy the repository'],
        ['subagent', 'count the tests under test/unit'],
      ],
    );
  });

  it('a long task: the title is its start on one line (80 characters), the task all of it up to 600', async () => {
    const task = `Read every file under src/ingest and list\n\nfor each one ${'the formats it reads, '.repeat(40)}end`;
    const { store } = await ownSubagent(task);
    const [child] = lineageOf(store, P).children;
    const flat = task.replace(/\s+/g, ' ');
    assert.strictEqual(child.title, `${flat.slice(0, 80)}…`);
    assert.strictEqual(child.task, `${flat.slice(0, 600)}…`);
  });

  it("an ingested Claude Code subagent: the Task call's description as its title and its prompt as the task, with its state and receipt", async () => {
    const prompt = 'Look through test/ for the test that fails one run in ten.\nReport its name and why.';
    const { store, parent, child } = await ingestedClaudeCode({ description: 'Find the flaky test', prompt, subagent_type: 'general-purpose' });
    const view = lineageOf(store, parent);
    assert.deepStrictEqual(
      view.children.map((c) => [c.sessionId, c.relation, c.state, c.title, c.task]),
      [[child, 'subagent', 'linked', 'Find the flaky test', prompt.replace(/\s+/g, ' ')]],
    );
    const link = store.entries(parent).find((e) => e.name === 'subagent/linked');
    assert.strictEqual(view.children[0].receiptEntryId, link?.entryId);
    assert.match(view.children[0].receipt, new RegExp(`^Linked subagent ${child.replace(/[/.]/g, '\\$&')}, frozen at #\\d+\\.$`));
    assert.deepStrictEqual(
      lineageOf(store, child).ancestors.map((a) => [a.relation, a.title]),
      [
        ['root', 'Fix the failing test'],
        ['subagent', 'Find the flaky test'],
      ],
    );
  });

  it("a Task call with only a prompt is named by the prompt; one whose input names no task, by the child's first message", async () => {
    const promptOnly = await ingestedClaudeCode({ prompt: 'Investigate the lexer' });
    assert.deepStrictEqual(
      lineageOf(promptOnly.store, promptOnly.parent).children.map((c) => [c.title, c.task]),
      [['Investigate the lexer', 'Investigate the lexer']],
    );
    // A hostile or unknown input (fields of the wrong type) is passed over: the child's own title stands, the task is unknown.
    const odd = await ingestedClaudeCode({ description: 42, prompt: ['not', 'text'] });
    assert.deepStrictEqual(
      lineageOf(odd.store, odd.parent).children.map((c) => [c.title, c.task]),
      [['Investigate', null]],
    );
  });

  it('a link that names no spawning call, and a fork: their own titles, no task', async () => {
    const store = await TapeStore.inMemory();
    await store.appendMany(P, [message('m1', 'user', 1, 'plan the parser')]);
    const { childSessionId } = await startSubagent(store, P, { task: '  ' });
    await store.appendMany(childSessionId, [message('c1', 'user', 1, 'the child was asked this')]);
    await linkSubagent(store, P, childSessionId, 'completed');
    await forkSession(store, P, { forkId: 'f1' });
    assert.deepStrictEqual(
      lineageOf(store, P).children.map((c) => [c.relation, c.title, c.task]),
      [
        ['fork', 'plan the parser', null],
        ['subagent', 'the child was asked this', null],
      ],
    );
  });
});
