import type { IngestAgent } from '../ingestAgent';
import { otlp } from './otlp';

export const otlpAgent: IngestAgent = {
  label: 'OpenTelemetry (OTLP/JSON)',
  reader: { kind: 'source', format: otlp },
  // No agent keeps its trace files in a well-known folder: the user names the file.
  discovery: null,
  shape:
    '*.json or *.jsonl files of OTLP/JSON trace requests ({"resourceSpans": [...]}, whole or one a line) with GenAI spans: gen_ai.operation.name (or the span name\'s first word) invoke_agent, chat, text_completion, generate_content or execute_tool (Gemini CLI\'s agent_call, llm_call, tool_call)',
};
