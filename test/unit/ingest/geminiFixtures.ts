import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';

/**
 * Gemini CLI chat recordings as gemini-cli's chatRecordingService writes them, in the layouts of
 * the versions where they changed: v0.39+ JSONL logs with nested subagents (agentId on the spawning
 * call), v0.37–v0.38 JSON with nested subagents, v0.31–v0.36 JSON with a subagent beside its
 * parent, and the first JSON recordings (v0.4+) in a hash-named project folder, a compression going
 * on in a second file with the same session id (before v0.25).
 */

export const WORKSPACE = '/home/me/my.app';
export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const t = (min: number, sec = 0): string => new Date(Date.UTC(2026, 7, 1, 10, min, sec)).toISOString();

export const JSONL_SESSION = 'a1b2c3d4-0000-4000-8000-000000000001';
export const JSONL_AGENT = 'c0ffee00-1111-4222-8333-444455556666';
export const JSONL_FILE = 'session-2026-08-01T10-00-a1b2c3d4.jsonl';

const tokens = (input: number, output: number, cached: number, thoughts = 0) => ({
  input,
  output,
  cached,
  thoughts,
  tool: 0,
  total: input + output + thoughts,
});
const response = (id: string, name: string, result: { output?: string; error?: string }) => [{ functionResponse: { id, name, response: result } }];
const call = (id: string, name: string, args: object, status: string, result: object[] | null, at: string, extra: object = {}) => ({
  id,
  name,
  args,
  result,
  status,
  timestamp: at,
  displayName: name,
  description: '',
  renderOutputAsMarkdown: false,
  ...extra,
});

const readCall = call(
  'read_file-1',
  'read_file',
  { absolute_path: '/home/me/my.app/a.test.ts' },
  'success',
  response('read_file-1', 'read_file', { output: 'test body' }),
  t(1, 20),
);
const shellCall = call(
  'run_shell_command-2',
  'run_shell_command',
  { command: 'npm test' },
  'error',
  response('run_shell_command-2', 'run_shell_command', { error: 'exit 1' }),
  t(1, 30),
);
const agentCall = call(
  'codebase_investigator-3',
  'codebase_investigator',
  { objective: 'Investigate' },
  'success',
  response('codebase_investigator-3', 'codebase_investigator', { output: 'Subagent done' }),
  t(3),
  {
    agentId: JSONL_AGENT,
  },
);
const g1 = {
  id: 'g1',
  timestamp: t(1, 10),
  type: 'gemini',
  content: "I'll read the test.",
  thoughts: [{ subject: 'Reading', description: 'Look at the test first.', timestamp: t(1, 5) }],
  tokens: tokens(100, 20, 50, 7),
  model: 'gemini-2.5-pro',
};
const g4 = (content: string) => ({ id: 'g4', timestamp: t(5, 10), type: 'gemini', content, thoughts: [], tokens: tokens(5, 7, 0), model: 'gemini-2.5-pro' });

/**
 * A v0.39+ session log: the opening context synced in by a checkpoint, a prompt whose display
 * differs from what the model got, a message written again as its tool calls and tokens arrive,
 * tool responses as user turns, a subagent, a notice, a message that grows, a rewind, a
 * compression's checkpoint, a record of a type no version writes.
 */
export function jsonlRecords(): object[] {
  return [
    { sessionId: JSONL_SESSION, projectHash: sha256(WORKSPACE), startTime: t(0), lastUpdated: t(0), kind: 'main' },
    {
      $set: {
        messages: [{ id: 'env', timestamp: t(0), type: 'user', content: [{ text: '<session_context>\nThis is the Gemini CLI.\n</session_context>' }] }],
        lastUpdated: t(0),
      },
    },
    {
      id: 'u1',
      timestamp: t(1),
      type: 'user',
      content: [{ text: 'Fix the failing test in a.test.ts' }],
      displayContent: [{ text: 'Fix the failing test in @a.test.ts' }],
    },
    { $set: { lastUpdated: t(1) } },
    { $set: { summary: 'Fix the failing test' } },
    g1,
    { ...g1, toolCalls: [readCall] },
    { ...g1, toolCalls: [readCall, shellCall] },
    {
      id: 'fr1',
      timestamp: t(2),
      type: 'user',
      content: [...response('read_file-1', 'read_file', { output: 'test body' }), ...response('run_shell_command-2', 'run_shell_command', { error: 'exit 1' })],
    },
    { id: 'g2', timestamp: t(2, 10), type: 'gemini', content: '', thoughts: [], tokens: tokens(200, 30, 300), model: 'gemini-2.5-pro', toolCalls: [agentCall] },
    { id: 'fr2', timestamp: t(3, 5), type: 'user', content: response('codebase_investigator-3', 'codebase_investigator', { output: 'Subagent done' }) },
    { id: 'g3', timestamp: t(3, 10), type: 'gemini', content: 'Fixed.', thoughts: [], tokens: tokens(10, 3, 400), model: 'gemini-2.5-pro' },
    { id: 'i1', timestamp: t(4), type: 'info', content: 'Chat history compressed from 1000 to 200 tokens.' },
    { id: 'u2', timestamp: t(5), type: 'user', content: [{ text: 'Now add docs' }] },
    g4('Adding'),
    g4('Adding docs now.'),
    { id: 'u3', timestamp: t(6), type: 'user', content: [{ text: 'Delete everything' }] },
    { id: 'g5', timestamp: t(6, 10), type: 'gemini', content: 'Deleting.', thoughts: [], tokens: tokens(4, 2, 0), model: 'gemini-2.5-pro' },
    { $rewindTo: 'u3' },
    { id: 'w1', timestamp: t(7), type: 'warning', content: 'Approaching the context window.' },
    { id: 'm1', timestamp: t(7, 5), type: 'mystery', content: 'from a future version' },
    { note: 'a record of no kind' },
    {
      $set: {
        messages: [
          { id: 'env', timestamp: t(0), type: 'user', content: [{ text: '<session_context>\nThis is the Gemini CLI.\n</session_context>' }] },
          { id: 'rs1', timestamp: t(8), type: 'user', content: [{ text: '<state_snapshot>fixed the test</state_snapshot>' }] },
          { id: 'rs2', timestamp: t(8), type: 'gemini', content: [{ text: 'Got it. Thanks for the additional context!' }] },
          { ...g4('Adding docs now.') },
        ],
        lastUpdated: t(8),
      },
    },
    { id: 'u4', timestamp: t(9), type: 'user', content: [{ text: 'Thanks' }] },
    { id: 'g6', timestamp: t(9, 10), type: 'gemini', content: 'You are welcome.', thoughts: [], tokens: tokens(6, 4, 0), model: 'gemini-2.5-flash' },
  ];
}

/** The subagent of the JSONL session: `chats/<session id>/<agent id>.jsonl`. */
export function jsonlSubagentRecords(): object[] {
  return [
    { sessionId: JSONL_AGENT, projectHash: sha256(WORKSPACE), startTime: t(2, 20), lastUpdated: t(2, 20), kind: 'subagent', directories: [WORKSPACE] },
    { id: 's1', timestamp: t(2, 21), type: 'user', content: [{ text: 'Investigate' }] },
    { id: 's2', timestamp: t(2, 40), type: 'gemini', content: 'Found it.', thoughts: [], tokens: tokens(1, 2, 3), model: 'gemini-2.5-flash' },
  ];
}

export const jsonl = (records: readonly object[]): string => records.map((r) => JSON.stringify(r)).join('\n') + '\n';

/** `~/.gemini/tmp/<slug>` of the workspace (v0.29+): its marker names the root, the registry maps it. */
export function slugProject(home: string, slug = 'my-app', root = WORKSPACE): string {
  const dir = path.join(home, '.gemini', 'tmp', slug);
  fs.mkdirSync(path.join(dir, 'chats'), { recursive: true });
  fs.writeFileSync(path.join(dir, '.project_root'), root);
  const registry = path.join(home, '.gemini', 'projects.json');
  const known = fs.existsSync(registry) ? (JSON.parse(fs.readFileSync(registry, 'utf8')) as { projects: Record<string, string> }).projects : {};
  fs.writeFileSync(registry, JSON.stringify({ projects: { ...known, [root]: slug } }, null, 2));
  return dir;
}

/** `~/.gemini/tmp/<sha256 of the root>` (before v0.29). */
export function hashProject(home: string, root = WORKSPACE): string {
  const dir = path.join(home, '.gemini', 'tmp', sha256(root));
  fs.mkdirSync(path.join(dir, 'chats'), { recursive: true });
  return dir;
}

/** The JSONL session and its subagent in the workspace's slug folder; the session file's path. */
export function writeJsonlSession(home: string, records = jsonlRecords(), subagent = jsonlSubagentRecords()): string {
  const chats = path.join(slugProject(home), 'chats');
  fs.mkdirSync(path.join(chats, JSONL_SESSION), { recursive: true });
  fs.writeFileSync(path.join(chats, JSONL_SESSION, `${JSONL_AGENT}.jsonl`), jsonl(subagent));
  const file = path.join(chats, JSONL_FILE);
  fs.writeFileSync(file, jsonl(records));
  return file;
}

export const V38_SESSION = 'b2c3d4e5-0000-4000-8000-000000000002';
/** v0.37–v0.38 subagent ids: six base-36 characters. */
export const V38_AGENT = 'k3x9qz';
const u = (min: number) => new Date(Date.UTC(2026, 3, 2, 9, min)).toISOString();

/** A v0.38 session file: one JSON document rewritten whole, pretty-printed, with a subagent nested under it (its call records no agent id yet). */
export function v38Session(): object {
  return {
    sessionId: V38_SESSION,
    projectHash: sha256(WORKSPACE),
    startTime: u(0),
    lastUpdated: u(9),
    messages: [
      { id: 'p1', timestamp: u(1), type: 'user', content: [{ text: 'Where is the config read?' }] },
      {
        id: 'p2',
        timestamp: u(2),
        type: 'gemini',
        content: '',
        thoughts: [],
        tokens: tokens(300, 40, 0),
        model: 'gemini-2.5-pro',
        toolCalls: [
          call(
            'codebase_investigator-9',
            'codebase_investigator',
            { objective: 'Find the config' },
            'success',
            response('codebase_investigator-9', 'codebase_investigator', { output: 'src/config.ts' }),
            u(4),
          ),
        ],
      },
      { id: 'p3', timestamp: u(5), type: 'gemini', content: 'In src/config.ts.', thoughts: [], tokens: tokens(350, 10, 200), model: 'gemini-2.5-pro' },
      {
        id: 'p4',
        timestamp: u(6),
        type: 'gemini',
        content: '',
        thoughts: [],
        tokens: tokens(360, 5, 200),
        model: 'gemini-2.5-pro',
        toolCalls: [call('write_file-10', 'write_file', { file_path: 'x' }, 'cancelled', null, u(7), { resultDisplay: 'Cancelled by the user.' })],
      },
    ],
    kind: 'main',
  };
}

export function v38Subagent(): object {
  return {
    sessionId: V38_AGENT,
    projectHash: sha256(WORKSPACE),
    startTime: u(3),
    lastUpdated: u(3),
    messages: [
      { id: 'q1', timestamp: u(3), type: 'user', content: [{ text: 'Find the config' }] },
      { id: 'q2', timestamp: u(3), type: 'gemini', content: 'src/config.ts', thoughts: [], tokens: tokens(50, 5, 0), model: 'gemini-2.5-flash' },
    ],
    directories: [WORKSPACE],
    kind: 'subagent',
  };
}

export function writeV38Session(home: string): string {
  const chats = path.join(slugProject(home), 'chats');
  fs.mkdirSync(path.join(chats, V38_SESSION), { recursive: true });
  fs.writeFileSync(path.join(chats, V38_SESSION, `${V38_AGENT}.json`), JSON.stringify(v38Subagent(), null, 2));
  const file = path.join(chats, 'session-2026-04-02T09-00-b2c3d4e5.json');
  fs.writeFileSync(file, JSON.stringify(v38Session(), null, 2));
  return file;
}

export const V35_SESSION = 'd4e5f6a7-0000-4000-8000-000000000004';
const w = (min: number) => new Date(Date.UTC(2026, 2, 1, 9, min)).toISOString();

/** A v0.35 session and, beside it, its subagent's file: the same session id, `kind: 'subagent'`. */
export function writeV35Session(home: string): { parent: string; subagent: string } {
  const chats = path.join(slugProject(home), 'chats');
  const parent = path.join(chats, 'session-2026-03-01T09-00-d4e5f6a7.json');
  const subagent = path.join(chats, 'session-2026-03-01T09-02-d4e5f6a7.json');
  const base = { sessionId: V35_SESSION, projectHash: sha256(WORKSPACE), startTime: w(0), lastUpdated: w(5) };
  fs.writeFileSync(
    parent,
    JSON.stringify(
      {
        ...base,
        messages: [
          { id: 'v1', timestamp: w(1), type: 'user', content: 'Summarise the repo' },
          { id: 'v2', timestamp: w(4), type: 'gemini', content: 'It is a VS Code extension.', thoughts: [], tokens: tokens(70, 9, 0), model: 'gemini-2.5-pro' },
        ],
        kind: 'main',
      },
      null,
      2,
    ),
  );
  fs.writeFileSync(
    subagent,
    JSON.stringify(
      {
        ...base,
        startTime: w(2),
        messages: [
          { id: 'x1', timestamp: w(2), type: 'user', content: [{ text: 'List the packages' }] },
          { id: 'x2', timestamp: w(3), type: 'gemini', content: 'One package.', thoughts: [], tokens: tokens(20, 3, 0), model: 'gemini-2.5-flash' },
        ],
        kind: 'subagent',
      },
      null,
      2,
    ),
  );
  return { parent, subagent };
}

export const V10_SESSION = 'bbbbbbbb-0000-4000-8000-000000000003';
const v = (min: number) => new Date(Date.UTC(2025, 9, 12, 10, min)).toISOString();

/**
 * A session of the first recordings (v0.4–v0.24) in the hash-named folder: plain string contents,
 * no kind, and after a compression a second file with the same session id that goes on from there.
 */
export function writeV10Session(home: string): string[] {
  const chats = path.join(hashProject(home), 'chats');
  const first = path.join(chats, 'session-2025-10-12T10-00-bbbbbbbb.json');
  const second = path.join(chats, 'session-2025-10-12T10-30-bbbbbbbb.json');
  const base = { sessionId: V10_SESSION, projectHash: sha256(WORKSPACE) };
  fs.writeFileSync(
    first,
    JSON.stringify(
      {
        ...base,
        startTime: v(0),
        lastUpdated: v(20),
        messages: [
          { id: 'o1', timestamp: v(1), type: 'user', content: 'Explain main.ts' },
          {
            id: 'o2',
            timestamp: v(2),
            type: 'gemini',
            content: 'It starts the server.',
            thoughts: [{ subject: 'Main', description: 'Reading main.ts', timestamp: v(2) }],
            tokens: tokens(1000, 50, 0, 12),
            model: 'gemini-2.5-pro',
          },
        ],
      },
      null,
      2,
    ),
  );
  fs.writeFileSync(
    second,
    JSON.stringify(
      {
        ...base,
        startTime: v(30),
        lastUpdated: v(40),
        messages: [
          { id: 'o3', timestamp: v(31), type: 'user', content: 'And the tests?' },
          { id: 'o4', timestamp: v(32), type: 'gemini', content: 'There are none.', thoughts: [], tokens: tokens(400, 8, 100), model: 'gemini-2.5-pro' },
        ],
      },
      null,
      2,
    ),
  );
  return [first, second];
}

/** Token totals of recordings as Gemini CLI counts them: each message's last `tokens`, once per message id; the thoughts, which its output leaves out, added. */
export function tokenTotals(messages: readonly object[]): { attempts: number; inputTokens: number; outputTokens: number; cachedTokens: number } {
  const last = new Map<string, { input: number; output: number; cached: number; thoughts?: number }>();
  for (const m of messages as { id?: string; type?: string; tokens?: { input: number; output: number; cached: number; thoughts?: number } | null }[])
    if (m.type === 'gemini' && m.id !== undefined && m.tokens) last.set(m.id, m.tokens);
  const sum = (f: (x: { input: number; output: number; cached: number; thoughts?: number }) => number) => [...last.values()].reduce((n, x) => n + f(x), 0);
  return { attempts: last.size, inputTokens: sum((x) => x.input), outputTokens: sum((x) => x.output + (x.thoughts ?? 0)), cachedTokens: sum((x) => x.cached) };
}
