import * as http from 'http';
import type { AddressInfo } from 'net';

/**
 * A tiny scripted OpenAI-compatible server on 127.0.0.1 for the model tests: each POST to
 * `.../chat/completions` gets the next scripted reply. It stops itself after `lifetimeMs` even when
 * a test forgets to close it, so a failing test never leaves the process hanging.
 */
export type FakeChunk = { text: string } | { toolCall: { index: number; id?: string; name?: string; arguments?: string } };

export type FakeReply =
  | {
      stream: FakeChunk[];
      /** Sent in a final chunk with no choices, as `stream_options.include_usage` asks; absent = never sent. */
      usage?: { prompt_tokens: number; completion_tokens: number; cached_tokens?: number };
      /** Defaults to `tool_calls` when a chunk has a tool call, else `stop`. */
      finish?: string;
      /** The connection is destroyed after this many chunks were delivered, before the finish chunk. */
      cutAfter?: number;
      chunkDelayMs?: number;
    }
  | { status: number; headers?: Record<string, string>; body?: unknown }
  /** Accepts the request and never answers. */
  | { hang: true };

export interface RecordedRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export interface FakeOpenAiServer {
  baseURL: string;
  requests: RecordedRequest[];
  /** Requests whose client went away before the reply was complete. */
  abandoned: number;
  close(): Promise<void>;
}

export async function startFakeOpenAiServer(replies: FakeReply[], lifetimeMs = 10_000): Promise<FakeOpenAiServer> {
  const requests: RecordedRequest[] = [];
  let next = 0;
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.add(t);
    });
  const state = { abandoned: 0 };

  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (d: Buffer) => (raw += d.toString('utf8')));
    req.on('end', () => {
      requests.push({ path: req.url ?? '', headers: req.headers, body: JSON.parse(raw || '{}') as Record<string, unknown> });
      res.on('close', () => {
        if (!res.writableFinished) state.abandoned++;
      });
      const reply = replies[next++];
      if (reply === undefined) return json(res, 500, { error: { message: 'the fake server has no scripted reply left' } });
      if ('hang' in reply) return;
      if ('status' in reply) return json(res, reply.status, reply.body ?? { error: { message: `status ${reply.status}` } }, reply.headers);
      void streamReply(res, reply, later);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= new Promise<void>((resolve) => {
      clearTimeout(deadline);
      for (const t of timers) clearTimeout(t);
      server.close(() => resolve());
      server.closeAllConnections();
    });
    return closing;
  };
  const deadline = setTimeout(() => void close(), lifetimeMs);
  deadline.unref();

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    get abandoned() {
      return state.abandoned;
    },
    close,
  };
}

/** A port on 127.0.0.1 with nothing listening: it was free a moment ago and is closed now. */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

async function streamReply(res: http.ServerResponse, reply: Extract<FakeReply, { stream: FakeChunk[] }>, later: (ms: number) => Promise<void>): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    res.write(`data: ${JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 0, model: 'fake', choices, ...extra })}\n\n`);
  let sent = 0;
  for (const chunk of reply.stream) {
    if (res.destroyed) return;
    if (reply.cutAfter !== undefined && sent === reply.cutAfter) break;
    if (reply.chunkDelayMs) await later(reply.chunkDelayMs);
    if (res.destroyed) return;
    const delta =
      'text' in chunk
        ? { content: chunk.text }
        : {
            tool_calls: [
              {
                index: chunk.toolCall.index,
                ...(chunk.toolCall.id ? { id: chunk.toolCall.id, type: 'function' } : {}),
                function: { name: chunk.toolCall.name, arguments: chunk.toolCall.arguments },
              },
            ],
          };
    send([{ index: 0, delta: sent === 0 ? { role: 'assistant', ...delta } : delta, finish_reason: null }]);
    sent++;
  }
  if (reply.cutAfter !== undefined) {
    // Destroying at once would drop the chunks still in the socket's buffer: let them reach the client.
    await later(30);
    res.socket?.destroy();
    return;
  }
  const finish = reply.finish ?? (reply.stream.some((c) => 'toolCall' in c) ? 'tool_calls' : 'stop');
  send([{ index: 0, delta: {}, finish_reason: finish }]);
  if (reply.usage) {
    const { cached_tokens, ...counts } = reply.usage;
    send([], {
      usage: {
        ...counts,
        total_tokens: counts.prompt_tokens + counts.completion_tokens,
        ...(cached_tokens !== undefined ? { prompt_tokens_details: { cached_tokens } } : {}),
      },
    });
  }
  res.end('data: [DONE]\n\n');
}
