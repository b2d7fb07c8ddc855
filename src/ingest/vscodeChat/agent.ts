import type { IngestAgent } from '../ingestAgent';
import { vscodeChatDiscovery } from './discovery';
import { vscodeChat } from './vscodeChatFormat';

export const vscodeChatAgent: IngestAgent = {
  label: 'VS Code Chat',
  reader: { kind: 'source', format: vscodeChat },
  discovery: vscodeChatDiscovery,
  shape:
    '*.json and *.jsonl files in a chatSessions/ folder, or anywhere when they start as a chat session (its "requests", or a log\'s {"kind":0,"v":…} line)',
};
