import * as vscode from 'vscode';
import type { ModelMessage, ToolDefinition } from '../../agent/model/modelPort';

/**
 * VS Code's proposed `languageModelSystem` API adds this role; VS Code's own chat sends it to
 * providers, so a provider sees it even though stable code cannot create it.
 */
const SYSTEM_ROLE = 3;

const toolResultPart = (m: ModelMessage) => new vscode.LanguageModelToolResultPart(m.toolCallId ?? '', [new vscode.LanguageModelTextPart(m.content)]);

/**
 * The core's messages as VS Code messages. Stable API has no system role (the proposed one is
 * refused for extensions that do not enable it), so the system prompt goes first as a user
 * message, which every chat model accepts and follows nearly as well. Tool calls of one assistant
 * turn join the assistant message before them, and results that follow each other share one user
 * message, since providers for APIs that pair a turn's calls and results expect them that way.
 */
export function toLmMessages(messages: readonly ModelMessage[]): vscode.LanguageModelChatMessage[] {
  const out: vscode.LanguageModelChatMessage[] = [];
  let previous: ModelMessage | undefined;
  for (const m of messages) {
    const last = out[out.length - 1];
    if (m.role === 'assistant' && m.toolCallId !== undefined) {
      const call = new vscode.LanguageModelToolCallPart(m.toolCallId, m.toolName ?? '', argumentsOf(m.content));
      if (last?.role === vscode.LanguageModelChatMessageRole.Assistant) last.content = [...last.content, call];
      else out.push(vscode.LanguageModelChatMessage.Assistant([call]));
    } else if (m.role === 'tool') {
      if (previous?.role === 'tool' && last !== undefined) last.content = [...last.content, toolResultPart(m)];
      else out.push(vscode.LanguageModelChatMessage.User([toolResultPart(m)]));
    } else if (m.role === 'assistant') {
      out.push(vscode.LanguageModelChatMessage.Assistant(m.content));
    } else {
      out.push(vscode.LanguageModelChatMessage.User(m.content));
    }
    previous = m;
  }
  return out;
}

/**
 * A call the model made with arguments that are not a JSON object is on the tape with its raw
 * text and an error result; VS Code's part needs an object, and the result already tells the
 * model what was wrong.
 */
function argumentsOf(json: string): object {
  try {
    const parsed: unknown = JSON.parse(json);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/** What a provider receives, as the core's messages (the inverse of `toLmMessages`). */
export function fromLmRequestMessages(messages: readonly vscode.LanguageModelChatRequestMessage[]): ModelMessage[] {
  const out: ModelMessage[] = [];
  // Result parts carry only the call's id; the tape and the OpenAI form also name the tool.
  const toolNames = new Map<string, string>();
  for (const message of messages) {
    if (message.role === vscode.LanguageModelChatMessageRole.Assistant) {
      const text = textOf(message.content);
      if (text !== '') out.push({ role: 'assistant', content: text });
      for (const part of message.content) {
        if (!(part instanceof vscode.LanguageModelToolCallPart)) continue;
        toolNames.set(part.callId, part.name);
        out.push({ role: 'assistant', content: JSON.stringify(part.input), toolCallId: part.callId, toolName: part.name });
      }
      continue;
    }
    const role = (message.role as number) === SYSTEM_ROLE ? 'system' : 'user';
    // Text and results can interleave in one user message; their order is kept.
    let text = '';
    const flush = () => {
      if (text !== '') out.push({ role, content: text });
      text = '';
    };
    for (const part of message.content) {
      if (part instanceof vscode.LanguageModelTextPart) text += part.value;
      else if (part instanceof vscode.LanguageModelToolResultPart) {
        flush();
        const toolName = toolNames.get(part.callId);
        out.push({ role: 'tool', content: textOf(part.content), toolCallId: part.callId, ...(toolName !== undefined ? { toolName } : {}) });
      }
    }
    flush();
  }
  return out;
}

/** The text of some parts; parts without text (images, prompt-tsx trees) are left out. */
function textOf(parts: readonly unknown[]): string {
  return parts.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
}

export function toLmTools(tools: readonly ToolDefinition[]): vscode.LanguageModelChatTool[] {
  return tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.parameters }));
}

export function fromLmTools(tools: readonly vscode.LanguageModelChatTool[]): ToolDefinition[] {
  // A tool without a schema takes no arguments; servers want an object schema either way.
  return tools.map((t) => ({ name: t.name, description: t.description, parameters: schemaOf(t.inputSchema) }));
}

function schemaOf(schema: object | undefined): Record<string, unknown> {
  return schema === undefined ? { type: 'object', properties: {} } : { ...schema };
}
