/*
 * Spans as Copilot Chat emits them (microsoft/vscode-copilot-chat, docs/monitoring/agent_monitoring.md
 * and src/platform/otel/common/genAiAttributes.ts): `invoke_agent copilot` > `chat gpt-4o` >
 * `execute_tool readFile`, `gen_ai.conversation.id` on each, content (`gen_ai.input.messages`,
 * `gen_ai.output.messages`, `gen_ai.tool.call.arguments`/`.result`) only when captured, a
 * subagent's `invoke_agent` parented to the `execute_tool runSubagent` span that started it.
 * Written in the OTLP JSON mapping: hex ids, nanosecond strings, `AnyValue` attribute values.
 */

export const TRACE = '0af7651916cd43dd8448eb211c80319c';
export const TRACE2 = '4bf92f3577b34da6a3ce929d0e0e4736';
export const CONVERSATION = 'a1b2c3d4-0001';
export const SESSION = `otlp:${CONVERSATION}`;
export const T0 = 1_764_000_000_000n * 1_000_000n;

type Attr = string | number | boolean;
const value = (v: Attr) =>
  typeof v === 'string' ? { stringValue: v } : typeof v === 'boolean' ? { boolValue: v } : Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v };
export const attrs = (a: Record<string, Attr>) => Object.entries(a).map(([key, v]) => ({ key, value: value(v) }));
export const hexSpan = (n: number) => n.toString(16).padStart(16, '0');

export interface SpanSpec {
  id: number;
  parent?: number;
  name: string;
  /** Milliseconds after T0. */
  start: number;
  end: number;
  a?: Record<string, Attr>;
  error?: string;
  trace?: string;
}
export const span = (s: SpanSpec) => ({
  traceId: s.trace ?? TRACE,
  spanId: hexSpan(s.id),
  parentSpanId: s.parent === undefined ? '' : hexSpan(s.parent),
  name: s.name,
  kind: 1,
  startTimeUnixNano: String(T0 + BigInt(s.start) * 1_000_000n),
  endTimeUnixNano: String(T0 + BigInt(s.end) * 1_000_000n),
  attributes: attrs(s.a ?? {}),
  status: s.error === undefined ? { code: 0 } : { code: 2, message: s.error },
});
export const request = (spans: object[]) => ({
  resourceSpans: [
    {
      resource: { attributes: attrs({ 'service.name': 'copilot-chat', 'service.version': '0.40.0' }) },
      scopeSpans: [{ scope: { name: 'copilot-chat' }, spans }],
    },
  ],
});
export const messages = (...m: [string, string][]) => JSON.stringify(m.map(([role, text]) => ({ role, parts: [{ type: 'text', content: text }] })));

/** A turn: the agent, two model requests and the tool call the first asked for; content when `content`. */
export function turn(content: boolean, o: { trace?: string; base?: number; prompt?: string } = {}): object[] {
  const b = o.base ?? 0;
  const trace = o.trace ?? TRACE;
  const conv = { 'gen_ai.conversation.id': CONVERSATION };
  const prompt = o.prompt ?? 'Fix the failing test';
  const c = <T extends object>(x: T): T | object => (content ? x : {});
  return [
    span({
      trace,
      id: b + 1,
      name: 'invoke_agent copilot',
      start: 0,
      end: 1000,
      a: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.provider.name': 'github',
        'gen_ai.agent.name': 'copilot',
        ...conv,
        ...c({ 'gen_ai.input.messages': messages(['user', prompt]) }),
      },
    }),
    span({
      trace,
      id: b + 2,
      parent: b + 1,
      name: 'chat gpt-4o',
      start: 10,
      end: 200,
      a: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'github',
        'gen_ai.request.model': 'gpt-4o',
        'gen_ai.response.model': 'gpt-4o-2024-08-06',
        'gen_ai.response.id': 'chatcmpl-1',
        'gen_ai.usage.input_tokens': 1500,
        'gen_ai.usage.output_tokens': 250,
        'gen_ai.usage.cache_read.input_tokens': 1000,
        ...conv,
        ...c({
          'gen_ai.input.messages': messages(['system', 'You are Copilot'], ['user', prompt]),
          'gen_ai.output.messages': JSON.stringify([
            {
              role: 'assistant',
              parts: [
                { type: 'text', content: 'Reading it.' },
                { type: 'tool_call', id: 'call_1', name: 'readFile', arguments: { filePath: '/src/a.ts' } },
              ],
              finish_reason: 'tool_call',
            },
          ]),
        }),
      },
    }),
    span({
      trace,
      id: b + 3,
      parent: b + 1,
      name: 'execute_tool readFile',
      start: 210,
      end: 260,
      a: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'readFile',
        'gen_ai.tool.type': 'function',
        'gen_ai.tool.call.id': `call_${b + 1}`,
        ...c({ 'gen_ai.tool.call.arguments': '{"filePath":"/src/a.ts"}', 'gen_ai.tool.call.result': 'export const a = 1;' }),
      },
    }),
    span({
      trace,
      id: b + 4,
      parent: b + 1,
      name: 'chat gpt-4o',
      start: 270,
      end: 500,
      a: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'gpt-4o',
        'gen_ai.response.model': 'gpt-4o-2024-08-06',
        'gen_ai.usage.input_tokens': 2000,
        'gen_ai.usage.output_tokens': 100,
        'gen_ai.usage.cache_creation.input_tokens': 300,
        ...conv,
        ...c({
          'gen_ai.input.messages': messages(['user', prompt], ['tool', 'export const a = 1;']),
          'gen_ai.output.messages': messages(['assistant', 'Fixed.']),
        }),
      },
    }),
  ];
}

/** A span moved later by `ms` milliseconds. */
export function shifted(s: object, ms: number): object {
  const t = s as { startTimeUnixNano: string; endTimeUnixNano: string };
  const by = BigInt(ms) * 1_000_000n;
  return { ...s, startTimeUnixNano: String(BigInt(t.startTimeUnixNano) + by), endTimeUnixNano: String(BigInt(t.endTimeUnixNano) + by) };
}
