import * as assert from 'assert';
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { AgentTapeApi } from '../../src/extension/extension';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlpReceiver';
import { agentTapeLog } from './helpers';
import { until } from './waiting';

const EXTENSION_ID = 'agent-tape.agent-tape';
const FAKE = { vendor: 'agent-tape-fake' };
const otlp = () => vscode.workspace.getConfiguration('agentTape.otlp');
const operationOf = (attributes: Record<string, unknown>): unknown => attributes['gen_ai.operation.name'];

describe('OpenTelemetry live export', function () {
  let api: AgentTapeApi;
  let receiver: OtlpReceiver;

  before(async () => {
    api = await vscode.extensions.getExtension<AgentTapeApi>(EXTENSION_ID)!.activate();
    receiver = await startOtlpReceiver();
  });
  after(async () => {
    await vscode.commands.executeCommand('agentTape.otlp.clearHeaders');
    for (const key of ['endpoint', 'content', 'protocol']) await otlp().update(key, undefined, vscode.ConfigurationTarget.Global);
    await receiver.close();
  });

  it('sends an @tape turn to the collector with the header from secret storage, no content, and a status item only while on', async function () {
    this.timeout(120_000);
    assert.strictEqual(api.otlpStatusItem(), undefined, 'no status item while the endpoint is not set');

    const secret = `otel-header-${randomBytes(12).toString('hex')}`;
    assert.strictEqual(await vscode.commands.executeCommand('agentTape.otlp.setHeader', { name: 'X-Test-Key', value: secret }), 'X-Test-Key');
    assert.deepStrictEqual(otlp().get('headers'), ['X-Test-Key']);
    await otlp().update('endpoint', receiver.url.replace(/\/v1\/traces$/, ''), vscode.ConfigurationTarget.Global);
    const on = await until('the live export status item', () => api.otlpStatusItem());
    assert.strictEqual(on.text, '$(pulse) OTel 0 spans');
    assert.ok(on.tooltip.startsWith(`OpenTelemetry live export to ${receiver.url}\n`), on.tooltip);

    // A fresh profile may not have picked the model on the first request: asked again, each time with its own words.
    const probes: string[] = [];
    for (let attempt = 1; ; attempt++) {
      const probe = `otel-probe-${randomBytes(6).toString('hex')}`;
      probes.push(probe);
      await vscode.commands.executeCommand('workbench.action.chat.newChat');
      await vscode.commands.executeCommand('workbench.action.chat.open', { query: `@tape ${probe}`, modelSelector: FAKE, mode: 'ask' });
      try {
        await receiver.waitFor(() => receiver.spans().some((s) => operationOf(s.attributes) === 'invoke_agent'), 20_000);
        break;
      } catch (e) {
        if (attempt === 3) throw e;
      }
    }
    const spans = receiver.spans();
    const operations = new Set(spans.map((s) => operationOf(s.attributes)));
    assert.ok(operations.has('invoke_agent') && operations.has('chat'), [...operations].join(', '));
    for (const r of receiver.requests) assert.strictEqual(r.headers['x-test-key'], secret);
    // Content is opt-in: neither the prompt nor the echoed answer went out.
    for (const probe of probes) assert.ok(!JSON.stringify(spans).includes(probe), 'no prompt or answer in the spans');
    assert.ok(!spans.some((s) => Object.keys(s.attributes).some((k) => k === 'gen_ai.input.messages' || k === 'gen_ai.output.messages')));

    const counted = await until('the status item counting the spans sent', () => {
      const item = api.otlpStatusItem();
      return item !== undefined && /^\$\(pulse\) OTel [1-9][\d,]* spans?$/.test(item.text) ? item : undefined;
    });
    assert.ok(!counted.tooltip.includes(secret), counted.tooltip);

    // The header's value is in no setting, not in the log, not on the tape.
    for (const key of ['endpoint', 'protocol', 'content', 'headers']) assert.ok(!JSON.stringify(otlp().inspect(key) ?? {}).includes(secret), key);
    const log = await agentTapeLog('OpenTelemetry live export to');
    assert.ok(log.includes('OpenTelemetry header X-Test-Key set'), log);
    assert.ok(!log.includes(secret), 'the header value is not in the log');
    const tapeFile = await api.workspaceTapeFile();
    const dir = path.dirname(tapeFile);
    for (const f of fs.readdirSync(dir).filter((n) => n.startsWith(path.basename(tapeFile))))
      assert.ok(!fs.readFileSync(path.join(dir, f)).includes(secret), `the header value is not in ${f}`);

    await otlp().update('endpoint', undefined, vscode.ConfigurationTarget.Global);
    await until('the status item gone', () => (api.otlpStatusItem() === undefined ? true : undefined));
  });

  it('a bad setting keeps live export off and says why in the log', async () => {
    await otlp().update('protocol', 'grpc', vscode.ConfigurationTarget.Global);
    await otlp().update('endpoint', receiver.url.replace(/\/v1\/traces$/, ''), vscode.ConfigurationTarget.Global);
    await agentTapeLog('OpenTelemetry live export is off: agentTape.otlp.protocol');
    assert.strictEqual(api.otlpStatusItem(), undefined);
    await otlp().update('protocol', undefined, vscode.ConfigurationTarget.Global);
    await until('live export on once the setting is fixed', () => api.otlpStatusItem());
    await otlp().update('endpoint', undefined, vscode.ConfigurationTarget.Global);
    await until('the status item gone', () => (api.otlpStatusItem() === undefined ? true : undefined));
  });
});
