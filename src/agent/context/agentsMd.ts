import { statSync } from 'fs';
import * as path from 'path';
import { readRegularFile } from '../../store/safeRead';

/** AGENTS.md goes into every request's system prompt: a larger one is a mistake or an attack. */
const MAX_AGENTS_MD_BYTES = 512 * 1024;

/**
 * The workspace's AGENTS.md, or null when there is none. It comes with the repository, so it is
 * read as any file someone else wrote: a regular file (a FIFO or a link to a device is refused
 * with the reason), at most MAX_AGENTS_MD_BYTES.
 */
export async function readAgentsMd(root: string): Promise<string | null> {
  const file = path.join(root, 'AGENTS.md');
  if (!statSync(file, { throwIfNoEntry: false })) return null;
  return (await readRegularFile(file, MAX_AGENTS_MD_BYTES, 'AGENTS.md')).toString('utf8');
}
