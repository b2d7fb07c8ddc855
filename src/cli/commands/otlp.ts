import { commandEnv } from '../../agent/workspace/commandEnv';
import { writeFileDurably } from '../../store/fsutil';
import { otlpJsonChunks } from '../../otel/otlpExport';
import { secretMask } from '../../otel/secretMask';
import { parseArgs, str, UsageError } from '../args';
import type { Io } from '../output';
import { dayFlag } from './searchAll';
import { withTape } from './withTape';

/** The values of this process's variables whose names say they hold a secret (commandEnv withholds them from commands). */
export function secretValues(env: NodeJS.ProcessEnv): string[] {
  const kept = commandEnv(env);
  return Object.entries(env).flatMap(([name, value]) => (value !== undefined && !(name in kept) ? [value] : []));
}

/**
 * `otlp <tape> [--session S]... [--since DAY] [--content] [--out FILE]`: the tape's sessions as
 * OpenTelemetry GenAI spans (src/otel), one OTLP/JSON request, to a new FILE or stdout. Content
 * (messages, system instructions, tool arguments and results) only with --content, and even then
 * the values of secret-named variables and key-shaped text are masked.
 */
export async function otlpCommand(args: string[], io: Io): Promise<number> {
  const p = parseArgs(args, { valued: ['since', 'out'], repeated: ['session'], switches: ['content'], positional: ['tape'] });
  const since = dayFlag(str(p, 'since'), 'since')?.from;
  const out = str(p, 'out');
  const content = p.flags.has('content');
  const tape = p.positional[0];
  return withTape(tape, async ({ store }) => {
    const sessions = p.lists.get('session');
    for (const s of sessions ?? []) if (store.headEntryId(s) === 0) throw new UsageError(`the tape has no session ${s}`);
    const chunks = otlpJsonChunks(store, { tape, sessions, since, content, mask: content ? secretMask(secretValues(process.env)) : undefined });
    if (out === undefined) for (const c of chunks) io.data(c.toString('utf8'));
    else await writeFileDurably(out, chunks, true);
    return 0;
  });
}
