// A scripted OpenAI chat-completions server on 127.0.0.1 for recording Copilot CLI sessions (started
// by copilot-cli.mjs).
// Which reply a request gets follows from the request alone (its first prompt and how many answers
// it already holds), so a run can be repeated and the agent's own retries get the same answer.
import { eventStream, startModelServer } from './recording.mjs';

/** Replies by the first prompt's key: one per assistant answer already in the conversation. */
const scripts = [
  {
    key: 'SUBTASK',
    replies: (cwd) => [{ tool: 'view', args: { path: `${cwd}/a.txt` } }, { text: 'The file reads "hello world" and is fine.' }],
  },
  {
    key: 'Fix the typo',
    replies: (cwd) => [
      { text: 'I will read a.txt first.', tool: 'view', args: { path: `${cwd}/a.txt` } },
      { tool: 'edit', args: { path: `${cwd}/a.txt`, old_str: 'helo', new_str: 'hello' } },
      { tool: 'bash', args: { command: 'cat a.txt', description: 'Show the fixed file' } },
      {
        tool: 'task',
        args: {
          description: 'Review the fix',
          agent_type: 'explore',
          name: 'reviewer',
          prompt: 'SUBTASK: read a.txt and say whether it is correct.',
        },
      },
      { text: 'Fixed the typo in a.txt; the reviewer agrees.' },
    ],
  },
];

const compactionSummary = '<overview>The user asked to fix a typo in a.txt; it was fixed and reviewed.</overview>';

function textOf(content) {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => p.text ?? '').join('');
  return '';
}

function replyTo(body, cwd) {
  const messages = body.messages ?? [];
  const prompts = messages.filter((m) => m.role === 'user').map((m) => textOf(m.content));
  const last = messages.at(-1);
  if (last?.role === 'user' && textOf(last.content).includes('summary of the conversation')) return { text: compactionSummary };
  const script = scripts.find((s) => prompts.some((p) => p.includes(s.key)));
  if (!script) return { text: compactionSummary };
  const answered = messages.filter((m) => m.role === 'assistant').length;
  const replies = script.replies(cwd);
  return replies[Math.min(answered, replies.length - 1)];
}

export function startServer({ cwd, log }) {
  let count = 0;
  return startModelServer(log, (req, res, body) => {
    count++;
    if (!req.url.endsWith('/chat/completions')) {
      res.writeHead(404).end();
      return;
    }
    const reply = replyTo(body, cwd);
    const id = `chatcmpl-${count}`;
    const send = eventStream(res);
    const chunk = (choices, extra = {}) => send({ id, object: 'chat.completion.chunk', created: 1, model: body.model, choices, ...extra });
    if (reply.text) chunk([{ index: 0, delta: { role: 'assistant', content: reply.text }, finish_reason: null }]);
    if (reply.tool)
      chunk([
        {
          index: 0,
          delta: {
            role: 'assistant',
            tool_calls: [
              {
                index: 0,
                id: `call_${count}`,
                type: 'function',
                function: { name: reply.tool, arguments: JSON.stringify(reply.args) },
              },
            ],
          },
          finish_reason: null,
        },
      ]);
    chunk([{ index: 0, delta: {}, finish_reason: reply.tool ? 'tool_calls' : 'stop' }]);
    // Distinct figures per request, so a test can tell input, cached, output and reasoning apart.
    chunk([], {
      usage: {
        prompt_tokens: 2000 + 100 * count,
        completion_tokens: 40 + count,
        total_tokens: 2040 + 101 * count,
        prompt_tokens_details: { cached_tokens: 500 + 10 * count },
        completion_tokens_details: { reasoning_tokens: 3 + count },
      },
    });
    res.end('data: [DONE]\n\n');
  });
}
