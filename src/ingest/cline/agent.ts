import type { IngestAgent } from '../ingestAgent';
import { cline, kilo, roo } from './clineFormats';
import { clineDiscovery } from './discovery';

const TASK_FOLDERS = 'task folders holding api_conversation_history.json or ui_messages.json';

/** Cline's discovery lists its forks' tasks too, each under the agent whose storage holds it. */
export const clineAgent: IngestAgent = { label: 'Cline', reader: { kind: 'source', format: cline }, discovery: clineDiscovery, shape: TASK_FOLDERS };
export const rooAgent: IngestAgent = { label: 'Roo Code', reader: { kind: 'source', format: roo }, discovery: null, shape: TASK_FOLDERS };
export const kiloAgent: IngestAgent = { label: 'Kilo Code', reader: { kind: 'source', format: kilo }, discovery: null, shape: TASK_FOLDERS };
