import * as z from 'zod';
import { errorMessage } from '../../tape/errorMessage';

/** An OpenAI-compatible server that usually listens on a fixed loopback port. */
export interface LocalServer {
  name: string;
  port: number;
}

/** The servers people run on their own machine, on their default ports. */
export const LOCAL_SERVERS: readonly LocalServer[] = [
  { name: 'Ollama', port: 11434 },
  { name: 'LM Studio', port: 1234 },
  { name: 'llama.cpp', port: 8080 },
  { name: 'vLLM', port: 8000 },
];

export const DEFAULT_PROBE_TIMEOUT_MS = 1000;

/** What a probe of one server found: its models, or why there is none to offer. */
export type ProbeResult = LocalServer & { baseUrl: string } & (
    { status: 'found'; models: string[] } | { status: 'absent' | 'timeout' | 'invalid' | 'cancelled'; detail: string }
  );

// The OpenAI list format (`GET /v1/models`); servers add fields of their own, which are ignored.
const modelList = z.object({ data: z.array(z.object({ id: z.string().trim().min(1) })) });

// A model list is a few KB; a server that streams more is not one of these.
const MAX_REPLY_BYTES = 1 << 20;

export const baseUrlOf = (port: number): string => `http://127.0.0.1:${port}/v1`;

/**
 * Asks each server for `GET /v1/models` on 127.0.0.1, all at once, each for at most `timeoutMs`,
 * and resolves once every probe has an answer (in the order of `servers`). `signal` cancels
 * what is still waiting. Never rejects: a refused connection, a slow server or a reply that is
 * not a model list is a result saying so.
 */
export function probeLocalServers(options: { servers?: readonly LocalServer[]; timeoutMs?: number; signal?: AbortSignal } = {}): Promise<ProbeResult[]> {
  const { servers = LOCAL_SERVERS, timeoutMs = DEFAULT_PROBE_TIMEOUT_MS, signal } = options;
  return Promise.all(servers.map((server) => probeServer(server, timeoutMs, signal)));
}

async function probeServer(server: LocalServer, timeoutMs: number, cancel: AbortSignal | undefined): Promise<ProbeResult> {
  const baseUrl = baseUrlOf(server.port);
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = cancel === undefined ? timeout : AbortSignal.any([cancel, timeout]);
  const stopped = (): ProbeResult =>
    cancel?.aborted === true
      ? { ...server, baseUrl, status: 'cancelled', detail: 'cancelled' }
      : { ...server, baseUrl, status: 'timeout', detail: `no answer within ${timeoutMs} ms` };
  let text: string;
  try {
    const reply = await fetch(`${baseUrl}/models`, { signal, headers: { accept: 'application/json' }, redirect: 'error' });
    if (!reply.ok) {
      await reply.body?.cancel();
      return { ...server, baseUrl, status: 'invalid', detail: `HTTP ${reply.status}` };
    }
    text = await cappedText(reply);
  } catch (e) {
    if (signal.aborted) return stopped();
    if (e instanceof ReplyTooLargeError) return { ...server, baseUrl, status: 'invalid', detail: e.message };
    return { ...server, baseUrl, status: 'absent', detail: causeOf(e) };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ...server, baseUrl, status: 'invalid', detail: 'the reply is not JSON' };
  }
  const parsed = modelList.safeParse(json);
  if (!parsed.success) return { ...server, baseUrl, status: 'invalid', detail: `not an OpenAI model list: ${z.prettifyError(parsed.error)}` };
  return { ...server, baseUrl, status: 'found', models: [...new Set(parsed.data.data.map((m) => m.id))] };
}

class ReplyTooLargeError extends Error {}

async function cappedText(reply: Response): Promise<string> {
  if (reply.body === null) return '';
  const reader = reply.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    size += read.value.byteLength;
    if (size > MAX_REPLY_BYTES) {
      await reader.cancel();
      throw new ReplyTooLargeError(`the reply is larger than ${MAX_REPLY_BYTES} bytes`);
    }
    chunks.push(read.value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** fetch's "fetch failed" hides the reason (ECONNREFUSED, …) in its cause. */
function causeOf(e: unknown): string {
  const cause = e instanceof Error && e.cause instanceof Error ? e.cause : e;
  const code = (cause as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code === 'ECONNREFUSED' ? 'nothing listens there' : code;
  return errorMessage(cause);
}
