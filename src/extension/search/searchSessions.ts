import * as vscode from 'vscode';
import * as z from 'zod/mini';
import type { OpenTape } from '../../agent/session/openTape';
import { SessionTitles } from '../../inspector/sessionTitles';
import { sessionAgentOf } from '../../store/sessionAgent';
import { sessionSearchOf, type SessionSearch, type SessionSearchHit } from '../../tape/search/sessionSearch';
import type { Deps } from '../deps';
import { reportingCommands } from '../sessionCommands';
import { pickSearchHit } from './searchPick';

/** A query to start from (keyboard users, tests): the pick opens with it and runs it. */
const queryArg = z.optional(z.string().check(z.maxLength(1000)));

/** The search of the workspace tape's store, its hits' titles as the sessions view names them (a fork's through its parent). */
function searchOf(open: OpenTape): SessionSearch {
  const titles = new SessionTitles(open.reader);
  return sessionSearchOf(open.store, { agentOf: (id) => sessionAgentOf(open.store, id), titleOf: (id) => titles.title(id) });
}

/** The entry as the inspector numbers it: a fork's own entries come after its parent's. */
const entryDetail = (open: OpenTape, hit: SessionSearchHit): string =>
  `${hit.kind === 'message' ? hit.name : `${hit.kind} ${hit.name}`} #${open.reader.positionOf(hit.sessionId, hit.entryId)}`;

/**
 * "Tape: Search All Sessions…" (the palette, the Tape Sessions view's title): a ranked search over
 * every session of the workspace tape (src/tape/search/sessionSearch.ts, from the tape's full-text index), and the hit chosen opened in
 * the inspector with its entry selected (`agentTape.openInspector` with the entry's position).
 * Resolves to the hit opened, its position and the hits shown then; undefined when dismissed.
 */
export function registerSearchSessions(deps: Pick<Deps, 'log' | 'tape'>): vscode.Disposable {
  const run = reportingCommands(deps.log);
  return run('agentTape.searchSessions', async (given?: unknown) => {
    const query = queryArg.parse(given) ?? '';
    const ws = await deps.tape.open();
    const open = deps.tape.tapeOf(ws);
    const picked = await pickSearchHit(searchOf(open), query, (hit) => entryDetail(open, hit), deps.log);
    if (picked === undefined) return undefined;
    const { hit, shown } = picked;
    const position = open.reader.positionOf(hit.sessionId, hit.entryId);
    deps.log.info(`Search All Sessions: opening ${hit.sessionId} at entry ${position}`);
    await vscode.commands.executeCommand('agentTape.openInspector', hit.sessionId, position);
    return { sessionId: hit.sessionId, entryId: hit.entryId, position, shown };
  });
}
