import * as path from 'path';
import { TapeFileError } from '../../store/errors';
import { countSkip, type Mapped, type MappedSession } from '../format';
import type { SourceFormat } from '../sourceFormat';
import { markedRootOf, projectHashOf } from './projectDirs';
import { readRecording, type Recording } from './recording';
import { namesakeFilesOf, nestedSubagentFilesOf, recordingPlaceOf, recordingSourceOf, type RecordingPlace } from './recordingFiles';
import { sessionEntries, type SubagentSession } from './sessionEntries';

/**
 * Gemini CLI's chat recordings (`~/.gemini/tmp/<project>/chats/`, recordingFiles.ts), read whole on
 * every run: a session's file with its subagents' recordings. Follows google-gemini/gemini-cli's
 * packages/core/src/services/chatRecordingService.ts from v0.4.0 (its first recordings) to main at
 * 5411f113ca (August 2026, after v0.56.0).
 *
 * Tape sessions: `gemini:<session id>` for a session; `gemini:<session id>/agent-<agent id>` for a
 * subagent of v0.37+ (its own id is short), `gemini:<session id>/agent-<file name>` for one of
 * v0.31–v0.36 (it recorded its parent's id as its own). Before v0.25 a compression went on in a new
 * file with the same session id: those files are one tape session, in the order their messages
 * were written.
 */

const stemOf = (file: string): string => path.basename(file).replace(/\.jsonl?$/, '');

/**
 * The folder the session ran in: the project folder's marker (v0.29+), else a directory the
 * recording lists whose hash is the project's (a subagent's, or one added with `/dir add`).
 */
function cwdOf(rec: Recording, place: RecordingPlace | null): string | undefined {
  const marked = place === null ? null : markedRootOf(place.projectDir);
  if (marked !== null) return marked;
  return rec.projectHash === undefined ? undefined : rec.directories?.find((d) => projectHashOf(d) === rec.projectHash);
}

function mapped(
  sessionId: string,
  rec: Recording,
  file: string,
  place: RecordingPlace | null,
  skipped: Record<string, number>,
  more: { parentSessionId?: string; children?: SubagentSession[] } = {},
): MappedSession {
  const entries = sessionEntries(
    { sessionId, recording: rec, source: file, cwd: cwdOf(rec, place), parentSessionId: more.parentSessionId, children: more.children ?? [] },
    skipped,
  );
  return { sessionId, entries };
}

/** A subagent recording read with its parent; one that cannot be read now (caught while it is rewritten) is counted, and read by the next run. */
function readChild(file: string, skipped: Record<string, number>): Recording | null {
  try {
    return readRecording(file, skipped);
  } catch (e) {
    if (!(e instanceof TapeFileError)) throw e;
    countSkip(skipped, 'unreadable/subagent');
    return null;
  }
}

/** v0.31–v0.36 subagents: session files beside the parent's with its session id and `kind: 'subagent'`. */
function namesakeSubagents(file: string, place: RecordingPlace, sessionId: string): { file: string; rec: Recording }[] {
  return namesakeFilesOf(file, place.chatsDir, sessionId).flatMap((f) => {
    // Only subagents are read here: another session file is a source of its own, which reports its own trouble.
    const rec = readChild(f, {});
    return rec !== null && rec.kind === 'subagent' && rec.sessionId === sessionId ? [{ file: f, rec }] : [];
  });
}

export const gemini: SourceFormat = {
  name: 'gemini',
  sourceOfPath: recordingSourceOf,
  recognizes: (_source, head) => /^\s*\{\s*"sessionId"\s*:\s*"(?:[^"\\]|\\.)*"\s*,\s*"projectHash"\s*:/.test(head.toString('utf8', 0, 4096)),
  read(source) {
    const skipped: Record<string, number> = {};
    const place = recordingPlaceOf(source);
    const rec = readRecording(source, skipped);
    // A session just started (its metadata only) has nothing to show yet; the next run maps what it gains.
    if (rec.messages.length === 0) return Promise.resolve({ sessions: [], skipped, tornLastLine: rec.tornLastLine });
    const own = rec.sessionId ?? stemOf(source);
    const sessions: MappedSession[] = [];
    if (place?.parentFolder != null) {
      // A subagent's recording on its own: its parent's session file is gone.
      const parent = `gemini:${place.parentFolder}`;
      sessions.push(mapped(`${parent}/agent-${own}`, rec, source, place, skipped, { parentSessionId: parent }));
    } else if (rec.kind === 'subagent') {
      const parent = `gemini:${own}`;
      sessions.push(mapped(`${parent}/agent-${stemOf(source)}`, rec, source, place, skipped, { parentSessionId: parent }));
    } else {
      const sessionId = `gemini:${own}`;
      const children: SubagentSession[] = [];
      if (place !== null && rec.sessionId !== null) {
        for (const f of nestedSubagentFilesOf(place.chatsDir, rec.sessionId)) {
          const child = readChild(f, skipped);
          if (child === null) continue;
          const agentId = child.sessionId ?? stemOf(f);
          const childId = `${sessionId}/agent-${agentId}`;
          children.push({ sessionId: childId, agentId: child.sessionId, startTime: child.startTime });
          sessions.push(mapped(childId, child, f, place, skipped, { parentSessionId: sessionId }));
        }
        for (const { file, rec: child } of namesakeSubagents(source, place, rec.sessionId)) {
          const childId = `${sessionId}/agent-${stemOf(file)}`;
          children.push({ sessionId: childId, agentId: null, startTime: child.startTime });
          sessions.push(mapped(childId, child, file, place, skipped, { parentSessionId: sessionId }));
        }
      }
      sessions.unshift(mapped(sessionId, rec, source, place, skipped, { children }));
    }
    return Promise.resolve<Mapped>({ sessions, skipped, tornLastLine: rec.tornLastLine });
  },
};
