import type { IngestAgent } from '../ingestAgent';
import { copilotCli } from './copilotCli';
import { copilotCliDiscovery } from './discovery';

export const copilotCliAgent: IngestAgent = {
  label: 'Copilot CLI',
  reader: { kind: 'source', format: copilotCli },
  discovery: copilotCliDiscovery,
  shape:
    'events.jsonl logs in a <session id>/ folder (~/.copilot/session-state/<id>/), or *.jsonl files that start with a "session.start" event of "copilot-agent"',
};
