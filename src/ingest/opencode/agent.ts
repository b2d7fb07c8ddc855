import type { IngestAgent } from '../ingestAgent';
import { opencodeDiscovery } from './discovery';
import { opencode } from './opencode';

export const opencodeAgent: IngestAgent = {
  label: 'opencode',
  reader: { kind: 'source', format: opencode },
  discovery: opencodeDiscovery,
  shape: "opencode*.db, a *.db or *.sqlite file with opencode's session, message and part tables, or a storage folder holding session/ and message/ folders",
};
