import type * as vscode from 'vscode';
import { readerOf } from '../store/lineage';
import type { TapeStore } from '../store/tapeStore';
import { FoldCache } from '../tape/foldCache';
import { CHAT_SESSION_PREFIX } from './chat/threadSession';

/**
 * Which tape session the window's commands act on, and one fold cache per open store, so the
 * per-request agent sessions of a chat refold only what is new.
 */
export class TapeSessions {
  private last: string | undefined;
  private lastModel: vscode.LanguageModelChat | undefined;
  private readonly folds = new WeakMap<TapeStore, FoldCache>();

  foldsOf(store: TapeStore): FoldCache {
    let cache = this.folds.get(store);
    if (cache === undefined) {
      cache = new FoldCache(readerOf(store));
      this.folds.set(store, cache);
    }
    return cache;
  }

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
