import * as assert from 'assert';
import * as http from 'http';
import type { AddressInfo } from 'net';
import { baseUrlOf, probeLocalServers, type LocalServer } from '../../../../src/agent/model/localServers';
import { closedPort } from '../../../support/fakeOpenAiServer';

/** A real HTTP server on 127.0.0.1 that answers every request with `handler`; resolves to its port. */
async function serve(handler: http.RequestListener): Promise<{ port: number; server: http.Server; paths: string[] }> {
  const paths: string[] = [];
  const server = http.createServer((req, res) => {
    paths.push(req.url ?? '');
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, server, paths };
}

const json =
  (body: unknown, status = 200): http.RequestListener =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

describe('local model servers (probeLocalServers)', function () {
  this.timeout(10_000);
  const servers: http.Server[] = [];
  const start = async (handler: http.RequestListener): Promise<{ port: number; paths: string[] }> => {
    const s = await serve(handler);
    servers.push(s.server);
    return s;
  };
  afterEach(async () => {
    for (const s of servers.splice(0)) {
      s.closeAllConnections();
      await new Promise((resolve) => s.close(resolve));
    }
  });

  it('finds a server that lists its models at /v1/models, with their ids (duplicates once)', async () => {
    const ollama = await start(
      json({ object: 'list', data: [{ id: 'qwen2.5-coder:7b', object: 'model', owned_by: 'library' }, { id: 'llama3.2:3b' }, { id: 'llama3.2:3b' }] }),
    );
    const [r] = await probeLocalServers({ servers: [{ name: 'Ollama', port: ollama.port }] });
    assert.deepStrictEqual(r, {
      name: 'Ollama',
      port: ollama.port,
      baseUrl: `http://127.0.0.1:${ollama.port}/v1`,
      status: 'found',
      models: ['qwen2.5-coder:7b', 'llama3.2:3b'],
    });
    assert.deepStrictEqual(ollama.paths, ['/v1/models']);
  });

  it('says nothing listens on a closed port, and probes the others meanwhile, in order', async () => {
    const port = await closedPort();
    const lm = await start(json({ data: [{ id: 'local-model' }] }));
    const results = await probeLocalServers({
      servers: [
        { name: 'vLLM', port },
        { name: 'LM Studio', port: lm.port },
      ],
    });
    assert.deepStrictEqual(
      results.map((r) => [r.name, r.status, r.status === 'found' ? r.models : r.detail]),
      [
        ['vLLM', 'absent', 'nothing listens there'],
        ['LM Studio', 'found', ['local-model']],
      ],
    );
  });

  it('refuses replies that are not a model list: HTML, other JSON, an error status', async () => {
    const html = await start((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>VS Code</title>');
    });
    const other = await start(json({ data: [{ name: 'no id' }] }));
    const missing = await start(json({ error: 'not found' }, 404));
    const results = await probeLocalServers({
      servers: [
        { name: 'html', port: html.port },
        { name: 'other', port: other.port },
        { name: 'missing', port: missing.port },
      ],
    });
    assert.deepStrictEqual(
      results.map((r) => r.status),
      ['invalid', 'invalid', 'invalid'],
    );
    const details = results.map((r) => (r.status === 'found' ? '' : r.detail));
    assert.strictEqual(details[0], 'the reply is not JSON');
    assert.match(details[1], /^not an OpenAI model list: .*data\[0\]\.id/s);
    assert.strictEqual(details[2], 'HTTP 404');
  });

  it('refuses a reply larger than a model list could be, without reading it all', async () => {
    const flood = await start((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const more = (): void => {
        while (res.write(chunk));
        res.once('drain', more);
      };
      more();
    });
    const [r] = await probeLocalServers({ servers: [{ name: 'flood', port: flood.port }], timeoutMs: 5_000 });
    assert.deepStrictEqual([r.status, r.status === 'found' ? '' : r.detail], ['invalid', 'the reply is larger than 1048576 bytes']);
  });

  it('gives up on a server that hangs past the timeout, without waiting for it', async () => {
    const hanging = await start(() => undefined); // never answers
    const fine = await start(json({ data: [{ id: 'm' }] }));
    const t0 = Date.now();
    const results = await probeLocalServers({
      servers: [
        { name: 'hangs', port: hanging.port },
        { name: 'fine', port: fine.port },
      ],
      timeoutMs: 300,
    });
    const took = Date.now() - t0;
    assert.deepStrictEqual(
      results.map((r) => [r.status, r.status === 'found' ? r.models : r.detail]),
      [
        ['timeout', 'no answer within 300 ms'],
        ['found', ['m']],
      ],
    );
    assert.ok(took >= 280 && took < 2_000, `took ${took} ms`);
  });

  it('probes all servers in parallel: four hanging ones take one timeout, not four', async () => {
    const hanging: LocalServer[] = [];
    for (let i = 0; i < 4; i++) hanging.push({ name: `h${i}`, port: (await start(() => undefined)).port });
    const t0 = Date.now();
    const results = await probeLocalServers({ servers: hanging, timeoutMs: 400 });
    assert.ok(Date.now() - t0 < 1_200, `took ${Date.now() - t0} ms`);
    assert.deepStrictEqual(new Set(results.map((r) => r.status)), new Set(['timeout']));
  });

  it('a cancel ends the waiting probes at once, as cancelled', async () => {
    const hanging = await start(() => undefined);
    const abort = new AbortController();
    const t0 = Date.now();
    const pending = probeLocalServers({ servers: [{ name: 'hangs', port: hanging.port }], timeoutMs: 5_000, signal: abort.signal });
    setTimeout(() => abort.abort(), 50);
    const [r] = await pending;
    assert.strictEqual(r.status, 'cancelled');
    assert.ok(Date.now() - t0 < 1_000);
  });

  it('probes the usual ports by default: Ollama 11434, LM Studio 1234, llama.cpp 8080, vLLM 8000, on loopback only', async () => {
    const results = await probeLocalServers({ timeoutMs: 200 });
    assert.deepStrictEqual(
      results.map((r) => [r.name, r.baseUrl]),
      [
        ['Ollama', baseUrlOf(11434)],
        ['LM Studio', baseUrlOf(1234)],
        ['llama.cpp', baseUrlOf(8080)],
        ['vLLM', baseUrlOf(8000)],
      ],
    );
    assert.ok(results.every((r) => r.baseUrl.startsWith('http://127.0.0.1:')));
  });
});
