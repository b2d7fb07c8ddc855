import type { ChatCompletionCreateParamsStreaming, ChatCompletionFunctionTool, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ModelMessage, ModelRequest, ToolDefinition } from './modelPort';

/**
 * The chat-completions form of a request. The tape keeps each tool call as its own assistant
 * message after the text it belongs to; the API wants the calls inside that assistant message, so
 * consecutive calls are folded into the assistant message before them.
 */
export function toChatMessages(messages: readonly ModelMessage[]): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  for (const m of messages) {
    if (m.role === 'assistant' && m.toolCallId !== undefined) {
      const call = { id: m.toolCallId, type: 'function' as const, function: { name: m.toolName ?? '', arguments: m.content } };
      const last = out[out.length - 1];
      if (last?.role === 'assistant') last.tool_calls = [...(last.tool_calls ?? []), call];
      else out.push({ role: 'assistant', content: null, tool_calls: [call] });
    } else if (m.role === 'tool') {
      out.push({ role: 'tool', tool_call_id: m.toolCallId ?? '', content: m.content });
    } else {
      out.push({ role: m.role, content: m.content });
    }
  }
  return out;
}

export function toChatTools(tools: readonly ToolDefinition[]): ChatCompletionFunctionTool[] {
  return tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));
}

/** The request's sampling options as the API names them; an option the request leaves out is not sent (the server's default). */
export function toChatOptions(request: ModelRequest): Pick<ChatCompletionCreateParamsStreaming, 'temperature' | 'seed' | 'reasoning_effort' | 'tool_choice'> {
  const { temperature, seed, reasoningEffort, toolChoice } = request;
  return {
    ...(temperature !== undefined ? { temperature } : {}),
    ...(seed !== undefined ? { seed } : {}),
    ...(reasoningEffort !== undefined ? { reasoning_effort: reasoningEffort } : {}),
    ...(toolChoice === undefined || request.tools.length === 0
      ? {}
      : { tool_choice: typeof toolChoice === 'string' ? toolChoice : { type: 'function' as const, function: { name: toolChoice.name } } }),
  };
}
