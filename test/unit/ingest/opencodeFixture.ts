import Database from 'better-sqlite3';
import * as fs from 'fs';
import * as path from 'path';

/**
 * opencode's sessions as opencode writes them, in both of its layouts: the SQLite database of 1.2
 * (the drizzle schema of packages/opencode/src/{project/project.sql.ts,session/session.sql.ts},
 * `message.data` and `part.data` holding MessageV2.Info and MessageV2.Part without their ids) in WAL
 * mode, as opencode opens it, and the per-file `storage/` folder of 1.1 (each file with its ids).
 */

export interface OcSessionRow {
  id: string;
  projectId: string;
  parentId?: string;
  directory: string;
  title: string;
  created: number;
}

/** What both layouts are written through. */
export interface OcWriter {
  project(id: string, worktree: string): void;
  session(s: OcSessionRow): void;
  message(sessionId: string, id: string, info: Record<string, unknown>): void;
  part(sessionId: string, messageId: string, id: string, data: Record<string, unknown>): void;
}

/** opencode 1.2's tables (its first migrations, as drizzle writes them). */
const SCHEMA = `
CREATE TABLE \`project\` (
  \`id\` text PRIMARY KEY, \`worktree\` text NOT NULL, \`vcs\` text, \`name\` text, \`icon_url\` text, \`icon_color\` text,
  \`time_created\` integer NOT NULL, \`time_updated\` integer NOT NULL, \`time_initialized\` integer, \`sandboxes\` text NOT NULL, \`commands\` text
);
CREATE TABLE \`session\` (
  \`id\` text PRIMARY KEY, \`project_id\` text NOT NULL, \`workspace_id\` text, \`parent_id\` text, \`slug\` text NOT NULL, \`directory\` text NOT NULL,
  \`title\` text NOT NULL, \`version\` text NOT NULL, \`share_url\` text, \`summary_additions\` integer, \`summary_deletions\` integer,
  \`summary_files\` integer, \`summary_diffs\` text, \`revert\` text, \`permission\` text, \`time_created\` integer NOT NULL,
  \`time_updated\` integer NOT NULL, \`time_compacting\` integer, \`time_archived\` integer,
  CONSTRAINT \`fk_session_project_id_project_id_fk\` FOREIGN KEY (\`project_id\`) REFERENCES \`project\`(\`id\`) ON DELETE CASCADE
);
CREATE TABLE \`message\` (
  \`id\` text PRIMARY KEY, \`session_id\` text NOT NULL, \`time_created\` integer NOT NULL, \`time_updated\` integer NOT NULL, \`data\` text NOT NULL,
  CONSTRAINT \`fk_message_session_id_session_id_fk\` FOREIGN KEY (\`session_id\`) REFERENCES \`session\`(\`id\`) ON DELETE CASCADE
);
CREATE TABLE \`part\` (
  \`id\` text PRIMARY KEY, \`message_id\` text NOT NULL, \`session_id\` text NOT NULL, \`time_created\` integer NOT NULL, \`time_updated\` integer NOT NULL,
  \`data\` text NOT NULL,
  CONSTRAINT \`fk_part_message_id_message_id_fk\` FOREIGN KEY (\`message_id\`) REFERENCES \`message\`(\`id\`) ON DELETE CASCADE
);
CREATE TABLE \`todo\` (
  \`session_id\` text NOT NULL, \`content\` text NOT NULL, \`status\` text NOT NULL, \`priority\` text NOT NULL, \`position\` integer NOT NULL,
  \`time_created\` integer NOT NULL, \`time_updated\` integer NOT NULL, CONSTRAINT \`todo_pk\` PRIMARY KEY(\`session_id\`, \`position\`)
);
CREATE TABLE \`permission\` (\`project_id\` text PRIMARY KEY, \`time_created\` integer NOT NULL, \`time_updated\` integer NOT NULL, \`data\` text NOT NULL);
CREATE TABLE \`session_share\` (\`session_id\` text PRIMARY KEY, \`id\` text NOT NULL, \`secret\` text NOT NULL, \`url\` text NOT NULL, \`time_created\` integer NOT NULL, \`time_updated\` integer NOT NULL);
CREATE INDEX \`session_project_idx\` ON \`session\` (\`project_id\`);
CREATE INDEX \`session_parent_idx\` ON \`session\` (\`parent_id\`);
CREATE INDEX \`message_session_time_created_id_idx\` ON \`message\` (\`session_id\`,\`time_created\`,\`id\`);
CREATE INDEX \`part_message_id_id_idx\` ON \`part\` (\`message_id\`,\`id\`);
CREATE INDEX \`part_session_idx\` ON \`part\` (\`session_id\`);
`;

const timeOf = (data: Record<string, unknown>, fallback: number): number => {
  const t = data.time as { created?: number; start?: number } | undefined;
  return t?.created ?? t?.start ?? fallback;
};

/**
 * An opencode database held open as opencode holds it: WAL mode, and (unlike opencode) no
 * automatic checkpoint, so what is written stays in `opencode.db-wal` until `checkpoint()`.
 */
export class OcDatabase implements OcWriter {
  readonly db: Database.Database;
  private now = 1;

  constructor(readonly file: string) {
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('wal_autocheckpoint = 0');
    this.db.exec(SCHEMA);
  }

  project(id: string, worktree: string): void {
    this.db
      .prepare('INSERT INTO project (id, worktree, vcs, time_created, time_updated, sandboxes) VALUES (?, ?, ?, ?, ?, ?)')
      .run(id, worktree, 'git', 1, 1, '[]');
  }

  session(s: OcSessionRow): void {
    this.db
      .prepare(
        'INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(s.id, s.projectId, s.parentId ?? null, 'brave-otter', s.directory, s.title, '1.2.0', s.created, s.created);
  }

  /** A message row, inserted or (as opencode's upsert does when a message completes) replaced. */
  message(sessionId: string, id: string, info: Record<string, unknown>): void {
    const t = timeOf(info, this.now++);
    this.db
      .prepare(
        'INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET data = excluded.data',
      )
      .run(id, sessionId, t, t, JSON.stringify(info));
    this.db.prepare('UPDATE session SET time_updated = max(time_updated, ?) WHERE id = ?').run(t, sessionId);
  }

  part(sessionId: string, messageId: string, id: string, data: Record<string, unknown>): void {
    const t = timeOf(data, this.now++);
    this.db
      .prepare(
        'INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET data = excluded.data',
      )
      .run(id, messageId, sessionId, t, t, JSON.stringify(data));
  }

  checkpoint(mode: 'PASSIVE' | 'RESTART' | 'TRUNCATE' = 'TRUNCATE'): void {
    this.db.pragma(`wal_checkpoint(${mode})`);
  }

  close(): void {
    this.db.close();
  }
}

/** opencode 1.1's `storage/` folder, each record a JSON file named by its id. */
export class OcStorage implements OcWriter {
  constructor(readonly dir: string) {}

  private write(rel: string[], value: object): void {
    const file = path.join(this.dir, ...rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify(value, null, 2));
  }

  project(id: string, worktree: string): void {
    this.write(['project', `${id}.json`], { id, worktree, vcs: 'git', time: { created: 1, updated: 1 }, sandboxes: [] });
  }

  session(s: OcSessionRow): void {
    this.write(['session', s.projectId, `${s.id}.json`], {
      id: s.id,
      slug: 'brave-otter',
      version: '1.1.25',
      projectID: s.projectId,
      directory: s.directory,
      ...(s.parentId === undefined ? {} : { parentID: s.parentId }),
      title: s.title,
      time: { created: s.created, updated: s.created },
    });
  }

  message(sessionId: string, id: string, info: Record<string, unknown>): void {
    this.write(['message', sessionId, `${id}.json`], { id, sessionID: sessionId, ...info });
  }

  part(sessionId: string, messageId: string, id: string, data: Record<string, unknown>): void {
    this.write(['part', messageId, `${id}.json`], { id, sessionID: sessionId, messageID: messageId, ...data });
  }
}

export const WS = '/w/app';
export const PARENT = 'ses_4a1b2c3d4001AAAAAAAAAAAAAA';
export const CHILD = 'ses_4a1b2c3d4002BBBBBBBBBBBBBB';
export const OTHER = 'ses_4a1b2c3d4003CCCCCCCCCCCCCC';
export const EMPTY = 'ses_4a1b2c3d4004DDDDDDDDDDDDDD';

const tokens = (input: number, output: number, reasoning: number, read: number, write: number) => ({ input, output, reasoning, cache: { read, write } });

const user = (created: number, model = 'claude-sonnet-4-5') => ({
  role: 'user',
  time: { created },
  agent: 'build',
  model: { providerID: 'anthropic', modelID: model },
});

const assistant = (created: number, parentID: string, extra: Record<string, unknown> = {}) => ({
  role: 'assistant',
  time: { created, completed: created + 500 },
  parentID,
  modelID: 'claude-sonnet-4-5',
  providerID: 'anthropic',
  mode: 'build',
  agent: 'build',
  path: { cwd: WS, root: WS },
  cost: 0,
  tokens: tokens(0, 0, 0, 0, 0),
  finish: 'stop',
  ...extra,
});

const stepFinish = (t: ReturnType<typeof tokens>, cost: number) => ({ type: 'step-finish', reason: 'stop', snapshot: 'a1b2', cost, tokens: t });

const completedTool = (callID: string, tool: string, input: object, output: string, start: number, metadata: object = {}) => ({
  type: 'tool',
  callID,
  tool,
  state: { status: 'completed', input, output, title: tool, metadata, time: { start, end: start + 100 } },
});

/** The step-finish parts written, by session: what the token totals must come to. */
export const stepTokens = new Map<string, ReturnType<typeof tokens>[]>();

function step(w: OcWriter, sessionId: string, messageId: string, id: string, t: ReturnType<typeof tokens>, cost: number): void {
  stepTokens.set(sessionId, [...(stepTokens.get(sessionId) ?? []), t]);
  w.part(sessionId, messageId, id, stepFinish(t, cost));
}

/**
 * A workspace session with a subagent, a compaction and an assistant message still streaming; a
 * session of another project; an empty one. Ids ascend as opencode's do (Identifier.ascending).
 */
export function writeSessions(w: OcWriter): void {
  stepTokens.clear();
  w.project('p_app', WS);
  w.project('p_other', '/w/other');
  w.session({ id: PARENT, projectId: 'p_app', directory: WS, title: 'Fix the failing test', created: 900 });
  w.session({ id: CHILD, projectId: 'p_app', parentId: PARENT, directory: WS, title: 'Investigate (@general subagent)', created: 3100 });
  w.session({ id: OTHER, projectId: 'p_other', directory: '/w/other', title: 'New session - 2026-01-02T03:04:05.000Z', created: 800 });
  w.session({ id: EMPTY, projectId: 'p_app', directory: WS, title: 'New session - 2026-01-02T03:04:06.000Z', created: 950 });

  const p = PARENT;
  w.message(p, 'msg_01', user(1000));
  w.part(p, 'msg_01', 'prt_01a', { type: 'text', text: 'Fix the failing test', time: { start: 1000, end: 1000 } });
  w.part(p, 'msg_01', 'prt_01b', { type: 'text', synthetic: true, text: 'Called the Read tool with the following input: {"filePath":"/w/app/a.test.ts"}' });
  w.part(p, 'msg_01', 'prt_01c', {
    type: 'file',
    mime: 'text/plain',
    filename: 'a.test.ts',
    url: 'file:///w/app/a.test.ts',
    source: { type: 'file', path: 'a.test.ts', text: { value: '@a.test.ts', start: 0, end: 10 } },
  });

  w.message(p, 'msg_02', assistant(2000, 'msg_01', { tokens: tokens(100, 20, 5, 50, 10), cost: 0.01 }));
  w.part(p, 'msg_02', 'prt_02a', { type: 'step-start', snapshot: 'a1b2' });
  w.part(p, 'msg_02', 'prt_02b', { type: 'reasoning', text: 'Look at the test first.', time: { start: 2001, end: 2002 } });
  w.part(p, 'msg_02', 'prt_02c', { type: 'text', text: "I'll look at the tests.", time: { start: 2003, end: 2004 } });
  w.part(p, 'msg_02', 'prt_02d', completedTool('toolu_1', 'read', { filePath: `${WS}/a.test.ts` }, 'test body', 2005));
  w.part(p, 'msg_02', 'prt_02e', {
    type: 'tool',
    callID: 'toolu_2',
    tool: 'bash',
    state: { status: 'error', input: { command: 'npm test' }, error: 'exit 1', time: { start: 2006, end: 2007 } },
  });
  step(w, p, 'msg_02', 'prt_02f', tokens(100, 20, 5, 50, 10), 0.01);
  w.part(p, 'msg_02', 'prt_02g', { type: 'patch', hash: 'c3d4', files: [`${WS}/a.ts`] });
  w.part(p, 'msg_02', 'prt_02h', { type: 'hologram', shimmer: true });

  w.message(p, 'msg_03', assistant(3000, 'msg_01', { finish: 'tool-calls' }));
  w.part(p, 'msg_03', 'prt_03a', { type: 'step-start' });
  w.part(
    p,
    'msg_03',
    'prt_03b',
    completedTool(
      'toolu_3',
      'task',
      { description: 'Investigate', prompt: 'Investigate', subagent_type: 'general' },
      `task_id: ${CHILD}\n\n<task_result>\nFound it.\n</task_result>`,
      3005,
      {
        sessionId: CHILD,
        model: { modelID: 'claude-sonnet-4-5', providerID: 'anthropic' },
      },
    ),
  );
  step(w, p, 'msg_03', 'prt_03c', tokens(200, 30, 0, 300, 0), 0.02);

  w.message(p, 'msg_04', assistant(4000, 'msg_01'));
  w.part(p, 'msg_04', 'prt_04a', { type: 'text', text: 'Fixed.' });
  step(w, p, 'msg_04', 'prt_04b', tokens(10, 3, 0, 400, 5), 0.003);

  w.message(p, 'msg_05', user(5000));
  w.part(p, 'msg_05', 'prt_05a', { type: 'compaction', auto: false });
  w.message(p, 'msg_06', assistant(6000, 'msg_05', { summary: true, mode: 'compaction', agent: 'compaction' }));
  w.part(p, 'msg_06', 'prt_06a', { type: 'text', text: 'Summary: the test is fixed.' });
  step(w, p, 'msg_06', 'prt_06b', tokens(1000, 50, 0, 0, 0), 0.004);

  w.message(p, 'msg_07', user(7000));
  w.part(p, 'msg_07', 'prt_07a', { type: 'text', text: 'Now add docs' });
  w.message(p, 'msg_08', assistant(8000, 'msg_07'));
  w.part(p, 'msg_08', 'prt_08a', { type: 'text', text: 'Done with docs.' });
  step(w, p, 'msg_08', 'prt_08b', tokens(5, 7, 0, 0, 0), 0.001);

  // Still streaming: no time.completed yet, its tool still running.
  w.message(p, 'msg_09', { ...assistant(9000, 'msg_07'), time: { created: 9000 }, finish: undefined });
  w.part(p, 'msg_09', 'prt_09a', { type: 'text', text: 'Writing the chang' });
  w.part(p, 'msg_09', 'prt_09b', {
    type: 'tool',
    callID: 'toolu_4',
    tool: 'write',
    state: { status: 'running', input: { filePath: 'CHANGES.md' }, time: { start: 9001 } },
  });

  const c = CHILD;
  w.message(c, 'msg_b1', { ...user(3100), agent: 'general' });
  w.part(c, 'msg_b1', 'prt_b1a', { type: 'text', text: 'Investigate' });
  w.message(c, 'msg_b2', assistant(3200, 'msg_b1', { agent: 'general' }));
  w.part(c, 'msg_b2', 'prt_b2a', { type: 'text', text: 'Found it.' });
  step(w, c, 'msg_b2', 'prt_b2b', tokens(1, 2, 0, 3, 0), 0.0001);

  const o = OTHER;
  w.message(o, 'msg_c1', user(850));
  w.part(o, 'msg_c1', 'prt_c1a', { type: 'text', text: 'Elsewhere' });
  w.message(o, 'msg_c2', { ...assistant(860, 'msg_c1'), path: { cwd: '/w/other', root: '/w/other' } });
  w.part(o, 'msg_c2', 'prt_c2a', { type: 'text', text: 'Yes.' });
  step(w, o, 'msg_c2', 'prt_c2b', tokens(9, 9, 0, 0, 0), 0.0009);
}

/** msg_09 finishing: its tool done, its text whole, the message completed (as opencode's processor ends a step). */
export function finishStreaming(w: OcWriter): void {
  const p = PARENT;
  w.part(p, 'msg_09', 'prt_09a', { type: 'text', text: 'Writing the changelog. Done.' });
  w.part(p, 'msg_09', 'prt_09b', completedTool('toolu_4', 'write', { filePath: 'CHANGES.md' }, 'Wrote file successfully.', 9001));
  step(w, p, 'msg_09', 'prt_09c', tokens(7, 11, 0, 20, 0), 0.002);
  w.message(p, 'msg_09', assistant(9000, 'msg_07'));
}

/** One more turn: a prompt and its answer. */
export function writeNextTurn(w: OcWriter): void {
  const p = PARENT;
  w.message(p, 'msg_10', user(10_000));
  w.part(p, 'msg_10', 'prt_10a', { type: 'text', text: 'And a changelog entry' });
  w.message(p, 'msg_11', assistant(11_000, 'msg_10'));
  w.part(p, 'msg_11', 'prt_11a', { type: 'text', text: 'Added.' });
  step(w, p, 'msg_11', 'prt_11b', tokens(3, 4, 0, 5, 0), 0.0005);
}
