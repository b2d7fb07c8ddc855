import { TapeFileError } from '../../store/errors';
import type { Mapped } from '../format';
import type { SourceFormat } from '../sourceFormat';
import { readEventLog, sessionStartData } from './events';
import { folderSessionIdOf, sessionLogOf, workspaceCwdOf } from './sessionFolder';
import { sessionEntries } from './sessionEntries';

/**
 * Copilot CLI's sessions (`~/.copilot/session-state/<id>/events.jsonl`, sessionFolder.ts), read
 * whole on every run: an event log that only grows, but for a rewind, which rewrites it without
 * what was taken back. Follows @github/copilot 1.0.102 (its session-events schema).
 *
 * Tape sessions: `copilot-cli:<session id>`, and `copilot-cli:<session id>/agent-<agentId>` for
 * each subagent (sessionEntries.ts).
 */

/** A session id this code puts in a tape session id. */
const SESSION_ID = /^[A-Za-z0-9_.-]{1,200}$/;

export const copilotCli: SourceFormat = {
  name: 'copilot-cli',
  sourceOfPath: sessionLogOf,
  recognizes: (_source, head) => {
    const first = head.toString('utf8', 0, 4096).split('\n', 1)[0];
    return /^\s*\{\s*"type"\s*:\s*"session\.start"/.test(first) && /"producer"\s*:\s*"copilot-agent"/.test(first);
  },
  read(source) {
    const skipped: Record<string, number> = {};
    const { events, tornLastLine } = readEventLog(source, skipped);
    if (events.length === 0) return Promise.resolve<Mapped>({ sessions: [], skipped, tornLastLine });
    const start = events.find((e) => e.event.type === 'session.start');
    const started = start === undefined ? undefined : sessionStartData.safeParse(start.event.data);
    const named = started?.success === true && SESSION_ID.test(started.data.sessionId) ? started.data.sessionId : folderSessionIdOf(source);
    if (named === null) throw new TapeFileError(source, 'names no Copilot CLI session: no session.start with an id, and its folder is not named by one');
    const cwd = workspaceCwdOf(source) ?? (started?.success === true ? started.data.context?.cwd : undefined);
    const sessions = sessionEntries({ sessionId: `copilot-cli:${named}`, events, source, cwd }, skipped);
    return Promise.resolve<Mapped>({ sessions, skipped, tornLastLine });
  },
};
