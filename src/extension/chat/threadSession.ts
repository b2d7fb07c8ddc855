import { randomUUID } from 'crypto';
import * as vscode from 'vscode';
import * as z from 'zod';
import type { HistoryTurn } from '../../agent/backfill';

/**
 * What a `@tape` answer leaves in its ChatResult: the tape session of its chat thread. VS Code keeps
 * it with the thread (across reloads too), so the next request of the thread finds its session in
 * `ChatContext.history`; the tape itself need not remember threads.
 */
export const tapeChatMetadata = z.object({
  sessionId: z.string().min(1),
  /** How the turn ended, for the followups; absent for slash commands. */
  outcome: z.enum(['answer', 'round_limit', 'provider_error', 'cancelled']).optional(),
});
export type TapeChatMetadata = z.infer<typeof tapeChatMetadata>;

export const CHAT_SESSION_PREFIX = 'chat-';

export const newChatSessionId = (): string => `${CHAT_SESSION_PREFIX}${randomUUID()}`;

type History = vscode.ChatContext['history'];

const sessionOfTurn = (turn: History[number]): string | undefined =>
  turn instanceof vscode.ChatResponseTurn ? tapeChatMetadata.safeParse(turn.result.metadata).data?.sessionId : undefined;

/** The session of the thread's newest `@tape` answer (a `/new` starts another one mid-thread). */
export function sessionOfHistory(history: History): string | undefined {
  for (let i = history.length - 1; i >= 0; i--) {
    const id = sessionOfTurn(history[i]);
    if (id !== undefined) return id;
  }
  return undefined;
}

/**
 * The exchanges of `sessionId` as the chat view kept them: each plain request with the markdown of
 * its answer. Slash commands are operations on the tape, not conversation, and are left out.
 */
export function historyTurnsOf(history: History, sessionId: string): HistoryTurn[] {
  const turns: HistoryTurn[] = [];
  for (let i = 0; i + 1 < history.length; i++) {
    const request = history[i];
    const response = history[i + 1];
    if (!(request instanceof vscode.ChatRequestTurn) || !(response instanceof vscode.ChatResponseTurn)) continue;
    if (request.command !== undefined || sessionOfTurn(response) !== sessionId) continue;
    const text = response.response.map((part) => (part instanceof vscode.ChatResponseMarkdownPart ? part.value.value : '')).join('');
    turns.push({ prompt: request.prompt, response: text });
    i++;
  }
  return turns;
}
