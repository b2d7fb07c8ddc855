import type * as vscode from 'vscode';
import type { TapeStore } from '../store/tapeStore';
import { CHAT_SESSION_PREFIX } from './chat/threadSession';

/** Which tape session the window's commands act on, and the model `@tape` used last. */
export class ActiveSession {
  private last: string | undefined;
  private lastModel: vscode.LanguageModelChat | undefined;

  /** A `@tape` request used this session with this model. */
  used(sessionId: string, model: vscode.LanguageModelChat): void {
    this.last = sessionId;
    this.lastModel = model;
  }

  /** The model `@tape` used last, while `available` still offers it. */
  model(available: readonly vscode.LanguageModelChat[]): vscode.LanguageModelChat | undefined {
    const last = this.lastModel;
    return last && available.find((m) => m.id === last.id && m.vendor === last.vendor);
  }

  /** The session `@tape` used last in this window, else the chat session the tape heard from last. */
  current(store: TapeStore): string | undefined {
    if (this.last !== undefined && store.headEntryId(this.last) > 0) return this.last;
    const chats = store.sessions().filter((s) => s.sessionId.startsWith(CHAT_SESSION_PREFIX));
    chats.sort((a, b) => b.lastCreatedAt - a.lastCreatedAt);
    return chats[0]?.sessionId;
  }
}
