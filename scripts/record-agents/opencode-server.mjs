// A scripted OpenAI-compatible chat API on 127.0.0.1 for recording opencode sessions
// (scripts/record-agents/opencode.mjs). Each scenario is picked by a word of the session's first
// prompt and advanced by how many tool results follow the last typed prompt; every reply is
// streamed and ends with usage whose figures differ per request (cached and reasoning included),
// so a test can tell them apart. Every request is logged to `log` (one JSON per line).
import { eventStream, startModelServer } from './recording.mjs';

const text = (c) => (typeof c === 'string' ? c : Array.isArray(c) ? c.map((p) => p.text ?? '').join('') : '');

/** What the model answers to `body`: `{ reasoning?, text?, tool? }`, and the prompt tokens to report. */
function scripted(body, dir) {
  const messages = body.messages ?? [];
  const system = messages
    .filter((m) => m.role === 'system')
    .map((m) => text(m.content))
    .join('\n');
  const users = messages.filter((m) => m.role === 'user');
  const first = text(users[0]?.content);
  const last = text(users[users.length - 1]?.content);
  const lastUser = messages.map((m) => m.role).lastIndexOf('user');
  const step = messages.slice(lastUser).filter((m) => m.role === 'tool').length;
  if (!(body.tools?.length > 0) && /title/i.test(system)) return { text: 'Scripted session' };
  if (/summar/i.test(last) || /summar/i.test(system.slice(0, 400))) return { text: '## Goal\nRead c.txt.\n## Done\nRead c.txt: it says "see you".' };
  if (/^continue if you have next steps/i.test(last.trim())) return { text: 'Nothing left to do: c.txt says "see you".' };
  const file = (name) => `${dir}/${name}`;
  if (first.includes('Read a.txt and change'))
    return [
      { reasoning: 'The user wants a.txt read first.', tool: { name: 'read', args: { filePath: file('a.txt') } } },
      { tool: { name: 'edit', args: { filePath: file('a.txt'), oldString: 'hello', newString: 'howdy' } } },
      { text: 'a.txt said "hello from a.txt"; it now says "howdy from a.txt".' },
    ][Math.min(step, 2)];
  if (first.includes('Run ls'))
    return [{ tool: { name: 'bash', args: { command: 'ls', description: 'Lists the project files' } } }, { text: 'The project holds a.txt and b.txt.' }][
      Math.min(step, 1)
    ];
  if (first.includes('Ask a subagent'))
    return [
      { tool: { name: 'task', args: { description: 'Read b.txt', prompt: 'Read b.txt and say what it says.', subagent_type: 'general' } } },
      { text: 'The subagent says b.txt says "bye from b.txt".' },
    ][Math.min(step, 1)];
  if (first.includes('Read b.txt and say'))
    return [{ tool: { name: 'read', args: { filePath: file('b.txt') } } }, { text: 'b.txt says "bye from b.txt".' }][Math.min(step, 1)];
  if (first.includes('big'))
    // A context this full makes opencode compact before its next request.
    return [{ tool: { name: 'read', args: { filePath: file('c.txt') } }, promptTokens: 7900 }, { text: 'c.txt says "see you".' }][Math.min(step, 1)];
  return { text: 'OK.' };
}

export function startServer(log, dir) {
  let n = 0;
  return startModelServer(log, (req, res, body) => {
    if (!req.url.endsWith('/chat/completions')) {
      res.writeHead(404).end();
      return;
    }
    const reply = scripted(body, dir);
    n += 1;
    const id = `chatcmpl-${n}`;
    const send = eventStream(res);
    const chunk = (delta, finish = null, usage) =>
      send({
        id,
        object: 'chat.completion.chunk',
        created: 1765000000 + n,
        model: 'm',
        choices: usage ? [] : [{ index: 0, delta, finish_reason: finish }],
        ...(usage ? { usage } : {}),
      });
    chunk({ role: 'assistant', content: '' });
    if (reply.reasoning) chunk({ reasoning_content: reply.reasoning });
    if (reply.text) chunk({ content: reply.text });
    if (reply.tool)
      chunk({
        tool_calls: [{ index: 0, id: `call_${n}`, type: 'function', function: { name: reply.tool.name, arguments: JSON.stringify(reply.tool.args) } }],
      });
    chunk({}, reply.tool ? 'tool_calls' : 'stop');
    const prompt = reply.promptTokens ?? 1000 + 37 * n;
    chunk({}, null, {
      prompt_tokens: prompt,
      completion_tokens: 40 + 3 * n,
      total_tokens: prompt + 40 + 3 * n,
      prompt_tokens_details: { cached_tokens: 300 + 11 * n },
      completion_tokens_details: { reasoning_tokens: 5 + 2 * n },
    });
    res.end('data: [DONE]\n\n');
  });
}
