import type { IngestAgent } from '../ingestAgent';
import { claudeCode } from './claudeCode';
import { claudeCodeDiscovery } from './discovery';

export const claudeCodeAgent: IngestAgent = {
  label: 'Claude Code',
  reader: { kind: 'lines', format: claudeCode },
  discovery: claudeCodeDiscovery,
  shape: '*.jsonl files whose first records are Claude Code\'s ("type": "user", "assistant", "summary", …), subagents in <session>/subagents/',
};
