import { readRegularFileSync } from '../store/safeRead';
import { errorMessage } from '../tape/errorMessage';
import { str, UsageError, type Parsed } from './args';

/** A system prompt is text a person wrote: a file larger than this is not one. */
const SYSTEM_PROMPT_MAX_BYTES = 1024 * 1024;

/**
 * The text of `--system-prompt FILE` (rerun, eval), or undefined without the flag. The file is read
 * as every file the CLI is handed: a regular file, checked on its descriptor, within a size limit,
 * so a FIFO or `/dev/zero` is refused at once instead of read for ever.
 */
export function systemPromptFlag(p: Parsed): string | undefined {
  const file = str(p, 'system-prompt');
  if (file === undefined) return undefined;
  try {
    return readRegularFileSync(file, SYSTEM_PROMPT_MAX_BYTES, 'a system prompt').toString('utf8');
  } catch (e) {
    throw new UsageError(`--system-prompt ${file}: ${errorMessage(e)}`);
  }
}
