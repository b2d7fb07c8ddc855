import type { IngestAgent } from '../ingestAgent';
import { codex } from './codex';
import { codexDiscovery } from './discovery';

export const codexAgent: IngestAgent = {
  label: 'Codex',
  reader: { kind: 'lines', format: codex },
  discovery: codexDiscovery,
  shape: '*.jsonl files whose first records are Codex\'s ("type": "session_meta", "response_item", …), rollout-*.jsonl in ~/.codex/sessions',
};
