import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { TapeStore } from '../../../src/store/tapeStore';
import { cli, ROOT } from './build';

const AGENTS = path.join(ROOT, 'test/fixtures/agents');

/**
 * Issue 37's round trip on sessions the real agents recorded: export a tape's sessions as OTLP/JSON,
 * import the file, and the other tape has the same requests, tool calls and token totals.
 */
describe('agent-tape otlp, then ingest --from otlp', function () {
  this.timeout(120_000);
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-otlp-round-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  for (const fixture of ['claude-code-2.1.332', 'codex-0.169.1']) {
    it(`gives back the requests, tool calls and token totals of ${fixture}`, async () => {
      const source = path.join(dir, 'source.tape.sqlite');
      const back = path.join(dir, 'back.tape.sqlite');
      const spans = path.join(dir, 'spans.json');
      const ingested = await cli('ingest', path.join(AGENTS, fixture), source);
      assert.strictEqual(ingested.code, 0, ingested.err);
      const exported = await cli('otlp', source, '--out', spans);
      assert.strictEqual(exported.code, 0, exported.err);
      const imported = await cli('ingest', spans, back, '--from', 'otlp');
      assert.strictEqual(imported.code, 0, imported.err);

      const [was, is] = [await figures(source), await figures(back)];
      assert.ok(was.requests > 0 && was.toolCalls > 0, `the fixture has requests and tool calls: ${JSON.stringify(was)}`);
      assert.deepStrictEqual(is, was);
      const totals = async (tape: string): Promise<string> => {
        const r = await cli('stats', tape);
        assert.strictEqual(r.code, 0, r.err);
        // The agent's name differs (the import's is `otlp`); the figures after it must not.
        return /in all:\n\s+\S+: (.*)/.exec(r.out)?.[1] ?? r.out;
      };
      assert.strictEqual(await totals(back), await totals(source));
    });
  }
});

async function figures(tape: string): Promise<{ requests: number; toolCalls: number; errors: number }> {
  const store = await TapeStore.open(tape, { readOnly: true });
  try {
    const results = store.entries(null, { kind: 'tool_result' });
    return {
      requests: store.entries(null, { kind: 'event', name: 'provider/attempt' }).length,
      toolCalls: store.entries(null, { kind: 'tool_call' }).length,
      errors: results.filter((e) => (e.payload as { status?: unknown }).status === 'error').length,
    };
  } finally {
    await store.close();
  }
}
