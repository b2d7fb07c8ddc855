// A scripted Responses API server on 127.0.0.1 for recording Codex sessions: each request is
// answered by the script's `reply(request)`, streamed as Server-Sent Events the way Codex reads
// them; every request is logged (one JSON line each) so a new Codex version's requests can be read.
import * as fs from 'fs';
import * as http from 'http';

/** The usage a reply reports: distinct, non-zero figures per request so a test can tell them apart. */
export function usageOf(n) {
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
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body;
      try {
        body = JSON.parse(raw);
      } catch {
        body = { raw: raw.slice(0, 2000) };
      }
      fs.appendFileSync(log, JSON.stringify({ method: req.method, url: req.url, headers: req.headers, body }) + '\n');
      if (req.headers.upgrade === 'websocket') {
        // No WebSocket here: Codex falls back to HTTP streaming.
        res.writeHead(426);
        res.end();
        return;
      }
      if (req.method === 'GET' && req.url.startsWith('/v1/models')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: [], models: [] }));
        return;
      }
      const n = ++count;
      const id = `resp_${n}`;
      const output = reply(body, req.url, n);
      if (req.url.endsWith('/responses/compact')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ output }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const send = (event) => res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
      send({ type: 'response.created', response: { id } });
      output.forEach((item, i) => {
        send({ type: 'response.output_item.added', output_index: i, item });
        send({ type: 'response.output_item.done', output_index: i, item });
      });
      send({ type: 'response.completed', response: { id, output, usage: usageOf(n) } });
      res.end();
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}
