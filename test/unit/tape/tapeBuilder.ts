import { validateEntry, type Entry, type JsonObject, type Kind } from '../../../src/tape/entry';
import { foldRowOf, type FoldRow } from '../../../src/tape/fold';
import type { FoldSource } from '../../../src/tape/foldCache';
import { interruptedResultEntry } from '../../../src/tape/toolPairs';

/** Builds a session's entries the way the store would (validated, dense ids), for domain tests. */
export class TapeBuilder implements FoldSource {
  readonly entries: Entry[] = [];
  private seq = 0;

  constructor(readonly sessionId = 's1') {}

  add(kind: Kind, name: string, payload: JsonObject, provenanceKey: string | null = null): Entry {
    const e = validateEntry({
      sessionId: this.sessionId,
      entryId: this.entries.length + 1,
      kind,
      name,
      provenanceKey,
      payload,
      meta: {},
      createdAt: 1_700_000_000_000 + this.entries.length,
    });
    this.entries.push(e);
    return e;
  }

  message(role: 'user' | 'assistant', messageId: string, content: string, opts: { status?: 'pending' | 'sent' | 'error'; orderSeq?: number } = {}): Entry {
    const orderSeq = opts.orderSeq ?? ++this.seq;
    return this.add('message', `message/${role}`, { messageId, role, status: opts.status ?? 'sent', orderSeq, content, turnId: 't1' });
  }

  user(messageId: string, content: string, opts: { status?: 'pending' | 'sent' | 'error'; orderSeq?: number } = {}): Entry {
    return this.message('user', messageId, content, opts);
  }

  assistant(messageId: string, content: string, opts: { status?: 'pending' | 'sent' | 'error'; orderSeq?: number } = {}): Entry {
    return this.message('assistant', messageId, content, opts);
  }

  call(messageId: string, toolCallId: string, name: string, input: unknown = {}): Entry {
    return this.add('tool_call', name, { messageId, toolCallId, name, input });
  }

  result(messageId: string, toolCallId: string, name: string, output: unknown, status: 'ok' | 'error' = 'ok'): Entry {
    return this.add('tool_result', name, { messageId, toolCallId, status, output });
  }

  /** The error result crash repair writes for a call it finds without one; once per call, as the store's key dedup has it. */
  interrupted(messageId: string, toolCallId: string, name: string): Entry {
    const e = interruptedResultEntry({ messageId, toolCallId, name, entryId: 0 });
    return this.entries.find((x) => x.provenanceKey === e.provenanceKey) ?? this.add(e.kind, e.name, e.payload, e.provenanceKey ?? null);
  }

  retract(messageId: string): Entry {
    return this.add('event', 'message/retracted', { name: 'message/retracted', data: { messageId } });
  }

  event(name: string, data: unknown): Entry {
    return this.add('event', name, { name, data });
  }

  anchor(name: string, state: unknown = {}): Entry {
    return this.add('anchor', name, { name, state });
  }

  system(content: string): Entry {
    return this.add('system', 'system/prompt', { content });
  }

  rows(): FoldRow[] {
    return this.entries.map(foldRowOf);
  }

  // FoldSource, so a FoldCache can read the builder as it reads a store.
  generation = (): number => 1;
  headEntryId = (): number => this.entries.length;
  foldRows = (_sessionId: string, afterEntryId: number): FoldRow[] => this.rows().slice(afterEntryId);

  get = (entryId: number): Entry => {
    const e = this.entries[entryId - 1];
    if (e === undefined) throw new Error(`no entry ${entryId}`);
    return e;
  };
}
