import * as z from 'zod';
import { readRegularFileIfExistsSync } from '../../store/safeRead';
import { jsonTextTooDeep } from '../../tape/jsonDepth';

/**
 * Claude Code writes `agent-<id>.meta.json` beside each subagent's transcript; its `toolUseId`
 * is the call that spawned the subagent, the one thing that names it when the subagent ran in the
 * background (its result then names no agent) or the result is not written yet.
 */
const META_MAX_BYTES = 64 * 1024;
const meta = z.looseObject({ toolUseId: z.string().min(1).optional() });

/** The spawning call's id `metaFile` names, or undefined when there is no such file or it says none. */
export function spawningCallOf(metaFile: string): string | undefined {
  try {
    const text = readRegularFileIfExistsSync(metaFile, META_MAX_BYTES, 'a Claude Code subagent meta file')?.toString('utf8');
    if (text === undefined || jsonTextTooDeep(text) !== null) return undefined;
    const parsed = meta.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data.toolUseId : undefined;
  } catch {
    return undefined;
  }
}
