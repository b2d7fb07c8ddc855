import { withheldValues } from '../../agent/workspace/commandEnv';
import { writeFileDurably } from '../../store/fsutil';
import { CACHE_WRITE_NAMES, type CacheWriteName } from '../../otel/genAiSpans';
import { otlpEndpointFromEnv, shownUrl } from '../../otel/otlpEndpoint';
import { otlpJsonChunks, sendSessions, type OtlpExportOptions } from '../../otel/otlpExport';
import { OtlpSender } from '../../otel/otlpSender';
import { secretMask } from '../../otel/secretMask';
import { errorMessage } from '../../tape/errorMessage';
import { parseArgs, str, UsageError } from '../args';
import type { Io } from '../output';
import { dayFlag } from './searchAll';
import { withTape } from './withTape';

/** The collector `--endpoint` names, with the protocol, headers and timeout of the OTEL_EXPORTER_OTLP_* variables. */
function endpointOf(base: string, env: NodeJS.ProcessEnv): NonNullable<ReturnType<typeof otlpEndpointFromEnv>>['endpoint'] {
  try {
    const found = otlpEndpointFromEnv({
      ...env,
      OTEL_EXPORTER_OTLP_ENDPOINT: base,
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined,
      OTEL_SDK_DISABLED: undefined,
      OTEL_TRACES_EXPORTER: undefined,
    });
    if (found === null) throw new Error('--endpoint is empty');
    return found.endpoint;
  } catch (e) {
    throw new UsageError(errorMessage(e));
  }
}

/** `--cache-tokens`: the spelling of the cache-write token count; the conventions' current one unless asked. */
function cacheTokensFlag(v: string | undefined): CacheWriteName | undefined {
  if (v === undefined) return undefined;
  const name = CACHE_WRITE_NAMES.find((n) => n === v);
  if (name === undefined) throw new UsageError(`--cache-tokens must be one of ${CACHE_WRITE_NAMES.join(', ')}, got ${JSON.stringify(v)}`);
  return name;
}

/** How long the last requests may take once every session is handed over. */
const CLOSE_MS = 30_000;

/**
 * `otlp <tape> [--session S]... [--since DAY] [--content] [--cache-tokens NAME] [--out FILE | --endpoint URL]`: the
 * tape's sessions as OpenTelemetry GenAI spans (src/otel): one OTLP/JSON request to a new FILE or
 * stdout, or sent to the collector at URL (a base URL, as OTEL_EXPORTER_OTLP_ENDPOINT; protocol,
 * headers and timeout from the OTEL_EXPORTER_OTLP_* variables). Content (messages, system
 * instructions, tool arguments and results) only with --content, and even then the values of
 * secret-named variables, the collector's headers and key-shaped text are masked.
 */
export async function otlpCommand(args: string[], io: Io): Promise<number> {
  const p = parseArgs(args, { valued: ['since', 'out', 'endpoint', 'cache-tokens'], repeated: ['session'], switches: ['content'], positional: ['tape'] });
  const since = dayFlag(str(p, 'since'), 'since')?.from;
  const out = str(p, 'out');
  const target = str(p, 'endpoint');
  if (out !== undefined && target !== undefined) throw new UsageError('--out and --endpoint: a file or a collector, not both');
  const endpoint = target === undefined ? null : endpointOf(target, process.env);
  const content = p.flags.has('content');
  const cacheWriteName = cacheTokensFlag(str(p, 'cache-tokens'));
  const tape = p.positional[0];
  return withTape(tape, async ({ store }) => {
    const sessions = p.lists.get('session');
    for (const s of sessions ?? []) if (store.headEntryId(s) === 0) throw new UsageError(`the tape has no session ${s}`);
    const secrets = [...withheldValues(process.env), ...Object.values(endpoint?.headers ?? {})];
    const options: OtlpExportOptions = { tape, sessions, since, content, cacheWriteName, mask: content ? secretMask(secrets) : undefined };
    if (endpoint !== null) {
      const sender = new OtlpSender(endpoint, { log: (_level, line) => io.err(`${line}\n`) });
      await sendSessions(store, options, sender);
      await sender.close(CLOSE_MS);
      const s = sender.status();
      io.err(
        `${s.sentSpans} spans sent to ${shownUrl(endpoint.url)} in ${s.sentRequests} request${s.sentRequests === 1 ? '' : 's'}${s.droppedSpans > 0 ? `; ${s.droppedSpans} not sent: ${s.lastError ?? 'stopped'}` : ''}\n`,
      );
      return s.droppedSpans > 0 || s.failedRequests > 0 ? 1 : 0;
    }
    const chunks = otlpJsonChunks(store, options);
    if (out === undefined) for (const c of chunks) io.data(c.toString('utf8'));
    else await writeFileDurably(out, chunks, true);
    return 0;
  });
}
