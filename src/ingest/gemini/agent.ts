import type { IngestAgent } from '../ingestAgent';
import { geminiDiscovery } from './discovery';
import { gemini } from './gemini';

export const geminiAgent: IngestAgent = {
  label: 'Gemini CLI',
  reader: { kind: 'source', format: gemini },
  discovery: geminiDiscovery,
  shape:
    'session-<YYYY-MM-DDTHH-mm>-<id>.json and .jsonl recordings (subagents in a <session id>/ folder beside them), or *.json and *.jsonl files that start with "sessionId" then "projectHash"',
};
