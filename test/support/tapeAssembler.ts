import type { AssembledRequest, RequestSlot } from '../../src/agent/loop';
import type { ModelPort } from '../../src/agent/model/modelPort';
import type { ToolRegistry } from '../../src/agent/tools/tool';
import type { TapeStore } from '../../src/store/tapeStore';
import { contextFrom } from '../../src/tape/context';
import type { Entry } from '../../src/tape/entry';
import { FoldCache } from '../../src/tape/foldCache';
import { includedOf, promptHashOf, sealManifest, toolsHashOf } from '../../src/tape/manifest';

/**
 * A minimal stand-in for context assembly, for tests of the loop: the whole effective history
 * since the last anchor, no budget fitting, and a valid sealed manifest of what it sent.
 */
export class TapeAssembler {
  readonly cache: FoldCache;

  constructor(
    private readonly store: TapeStore,
    private readonly sessionId: string,
    private readonly model: ModelPort,
    private readonly tools: ToolRegistry,
  ) {
    this.cache = new FoldCache(store);
  }

  lastOrderSeq = (): number => {
    const messages = this.cache.view(this.sessionId, { includePending: true }).messages;
    return messages.length === 0 ? 0 : messages[messages.length - 1].orderSeq;
  };

  assemble = ({ turnId, requestSeq }: RequestSlot): AssembledRequest => {
    const getEntry = (id: number): Entry => this.store.requireEntry(this.sessionId, id);
    const context = contextFrom(this.cache, this.sessionId, { kind: 'last' }, getEntry);
    const tools = this.tools.specs();
    const included = context.messages.map((m) => includedOf(m, 'history', this.model.countTokens(m.content)));
    const info = this.model.info;
    const manifest = sealManifest({
      schemaVersion: 1,
      viewId: `${turnId}/${requestSeq}`,
      sessionId: this.sessionId,
      turnId,
      requestSeq,
      policy: { name: 'test-context', version: 1 },
      builderVersion: 'test',
      latestEntryId: this.store.headEntryId(this.sessionId),
      anchorEntryId: context.anchorEntryId,
      included,
      excluded: [],
      tokenBudget: { contextWindow: info.contextWindow, maxOutput: info.maxOutput, reserve: 0, estimatedPrompt: included.reduce((s, i) => s + i.tokens, 0) },
      model: { vendor: info.vendor, id: info.id },
      hashes: { promptHash: promptHashOf(context.messages), toolsHash: toolsHashOf(tools) },
      assembledAt: Date.now(),
    });
    const messages = context.messages.map(({ role, content, toolCallId, toolName }) => ({
      role,
      content,
      ...(toolCallId ? { toolCallId } : {}),
      ...(toolName ? { toolName } : {}),
    }));
    return { request: { messages, tools, maxOutput: info.maxOutput }, manifest };
  };
}
