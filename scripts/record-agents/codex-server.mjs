// A scripted Responses API server on 127.0.0.1 for recording Codex sessions (started by codex.mjs):
// each request is answered by the script's `reply(request)`, streamed as Server-Sent Events the way
// Codex reads them; every request is logged (one JSON line each) so a new Codex version's requests can be read.
import { eventStream, replyJson, startModelServer } from './recording.mjs';

/** The usage a reply reports: distinct, non-zero figures per request so a test can tell them apart. */
function usageOf(n) {
  return {
    input_tokens: 1000 + 100 * n,
    input_tokens_details: { cached_tokens: 600 + 10 * n },
    output_tokens: 50 + n,
    output_tokens_details: { reasoning_tokens: 20 + n },
    total_tokens: 1050 + 101 * n,
  };
}

/** Starts the server; `reply(body, path)` returns the response's output items. */
export function startServer({ reply, log }) {
  let count = 0;
  return startModelServer(log, (req, res, body) => {
    if (req.headers.upgrade === 'websocket') {
      // No WebSocket here: Codex falls back to HTTP streaming.
      res.writeHead(426);
      res.end();
      return;
    }
    if (req.method === 'GET' && req.url.startsWith('/v1/models')) return replyJson(res, { object: 'list', data: [], models: [] });
    const n = ++count;
    const id = `resp_${n}`;
    const output = reply(body, req.url, n);
    if (req.url.endsWith('/responses/compact')) return replyJson(res, { output });
    const stream = eventStream(res);
    const send = (event) => stream(event, event.type);
    send({ type: 'response.created', response: { id } });
    output.forEach((item, i) => {
      send({ type: 'response.output_item.added', output_index: i, item });
      send({ type: 'response.output_item.done', output_index: i, item });
    });
    send({ type: 'response.completed', response: { id, output, usage: usageOf(n) } });
    res.end();
  });
}
