// A scripted Anthropic Messages API on 127.0.0.1 for recording Claude Code sessions: it answers
// from the prompt's marker (TAPE-A, TAPE-B, TAPE-SUB, TAPE-BLAME-1, …) and how many answers the conversation
// already holds, streams when asked, and logs every request it gets (one JSON line each). Started by
// claude-code.mjs and claude-code-blame.mjs.
import { eventStream, replyJson, startModelServer } from './recording.mjs';

/** Distinct, non-zero figures per answer, so a test can tell input, cache reads, cache writes and output apart. */
let answers = 0;
const usageOf = () => {
  answers++;
  return {
    input_tokens: 100 + answers * 7,
    cache_creation_input_tokens: 1000 + answers * 13,
    cache_read_input_tokens: 5000 + answers * 17,
    output_tokens: 20 + answers * 3,
    // The part of the output that was thinking (the thinking-token-count beta Claude Code asks for).
    output_tokens_details: { thinking_tokens: 5 + answers },
  };
};

const textOf = (content) =>
  typeof content === 'string' ? content : Array.isArray(content) ? content.map((b) => (b.type === 'text' ? b.text : '')).join('\n') : '';

/** The script: what to answer, as content blocks, to a conversation. */
function script(body, project) {
  const messages = body.messages ?? [];
  // The person's words: the text of user messages, not tool results (a subagent's prompt is in its parent's tool call only).
  const said = messages
    .filter((m) => m.role === 'user')
    .map((m) => textOf(m.content))
    .join('\n');
  const lastText = textOf(messages.at(-1)?.content);
  const turn = messages.filter((m) => m.role === 'assistant').length;
  const tool = (name, input) => ({ type: 'tool_use', id: `toolu_rec${String(answers + 1).padStart(4, '0')}`, name, input });
  const thinking = (text) => ({ type: 'thinking', thinking: text, signature: `sig-${answers + 1}` });
  const text = (t) => ({ type: 'text', text: t });
  // Compaction: the conversation so far with the summary instructions appended to its last user message.
  if (/TEXT ONLY/.test(lastText) && /summary/i.test(lastText))
    return [
      text('<analysis>Scripted.</analysis>\n<summary>1. The person asked to read a.txt, edit it and list the files.\n2. a.txt now says hello tape.</summary>'),
    ];
  if (!body.tools?.length) return [text('{"title": "Scripted session"}')];
  // Before TAPE-B, which the marker's text contains.
  if (said.includes('TAPE-BLAME')) return blameScript(messages, project, tool, text);
  if (said.includes('TAPE-SUB')) {
    if (turn === 0) return [thinking(''), tool('Read', { file_path: `${project}/b.txt` })];
    return [text('The subagent read b.txt: it says bravo.')];
  }
  if (said.includes('TAPE-A2')) return [text('a.txt says hello tape.')];
  if (said.includes('TAPE-A')) {
    if (turn === 0) return [thinking('I should read a.txt first.'), text('Reading a.txt.'), tool('Read', { file_path: `${project}/a.txt` })];
    if (turn === 1) return [tool('Edit', { file_path: `${project}/a.txt`, old_string: 'hello world', new_string: 'hello tape' })];
    if (turn === 2) return [thinking(''), tool('Bash', { command: 'ls && seq 1 600', description: 'List files and count' })];
    return [text('Done: a.txt now says hello tape.')];
  }
  if (said.includes('TAPE-B')) {
    if (turn === 0)
      return [tool('Agent', { description: 'Read b.txt', prompt: 'TAPE-SUB: read b.txt and say what it holds.', subagent_type: 'general-purpose' })];
    return [text('The subagent says b.txt holds bravo.')];
  }
  return [text(`Answer ${turn + 1}.`)];
}

/** claude-code-blame.mjs's session: turn 1 writes src/new.js and rewrites lines of src/calc.js, turn 2 (resumed) changes text inside a line. */
function blameScript(messages, project, tool, text) {
  // Answers since the turn's prompt: a resumed session holds the earlier turn's answers too.
  const prompted = messages.findLastIndex((m) => m.role === 'user' && /TAPE-BLAME-\d/.test(textOf(m.content)));
  const step = messages.slice(prompted).filter((m) => m.role === 'assistant').length;
  const calc = `${project}/src/calc.js`;
  const steps = textOf(messages[prompted]?.content).includes('TAPE-BLAME-2')
    ? [
        () => tool('Read', { file_path: calc }),
        () => tool('Edit', { file_path: calc, old_string: 'PRECISION = 2', new_string: 'PRECISION = 4' }),
        () => text('PRECISION is 4 now.'),
      ]
    : [
        () => tool('Write', { file_path: `${project}/src/new.js`, content: BLAME_NEW_FILE }),
        () => tool('Read', { file_path: calc }),
        () => tool('Edit', { file_path: calc, old_string: BLAME_OLD_LINES, new_string: BLAME_NEW_LINES }),
        () => text('Added src/new.js and a clearer division error.'),
      ];
  return [steps[Math.min(step, steps.length - 1)]()];
}
const BLAME_NEW_FILE = [
  '// Helpers built on calc.js.',
  "const { add, multiply } = require('./calc');",
  '',
  'function square(x) {',
  '  return multiply(x, x);',
  '}',
  '',
  'function sumOfSquares(a, b) {',
  '  return add(square(a), square(b));',
  '}',
  '',
  'module.exports = { square, sumOfSquares };',
  '',
].join('\n');
const BLAME_OLD_LINES = "  if (b === 0) {\n    throw new Error('division by zero');\n  }";
const BLAME_NEW_LINES = [
  '  if (b === 0) {',
  "    // Dividing by zero is the caller's mistake, not Infinity.",
  "    const message = 'division by zero: ' + a + ' / 0';",
  '    throw new RangeError(message);',
  '  }',
].join('\n');

function sse(res, message, blocks) {
  const stream = eventStream(res);
  const send = (event, data) => stream({ type: event, ...data }, event);
  const { usage } = message;
  send('message_start', { message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } });
  blocks.forEach((b, index) => {
    if (b.type === 'text') {
      send('content_block_start', { index, content_block: { type: 'text', text: '' } });
      send('content_block_delta', { index, delta: { type: 'text_delta', text: b.text } });
    } else if (b.type === 'thinking') {
      send('content_block_start', { index, content_block: { type: 'thinking', thinking: '' } });
      if (b.thinking) send('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: b.thinking } });
      send('content_block_delta', { index, delta: { type: 'signature_delta', signature: b.signature } });
    } else {
      send('content_block_start', { index, content_block: { ...b, input: {} } });
      send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(b.input) } });
    }
    send('content_block_stop', { index });
  });
  send('message_delta', {
    delta: { stop_reason: message.stop_reason, stop_sequence: null },
    usage: { output_tokens: usage.output_tokens, output_tokens_details: usage.output_tokens_details },
  });
  send('message_stop', {});
  res.end();
}

/** Starts the server; resolves to it listening. */
export function startServer({ log, project }) {
  return startModelServer(log, (req, res, body) => {
    const url = new URL(req.url, 'http://x');
    if (url.pathname === '/v1/messages/count_tokens') return replyJson(res, { input_tokens: 321 });
    if (url.pathname !== '/v1/messages') return replyJson(res, { type: 'error', error: { type: 'not_found_error', message: 'not scripted' } }, 404);
    const blocks = script(body, project);
    const message = {
      id: `msg_rec${String(answers + 1).padStart(4, '0')}`,
      type: 'message',
      role: 'assistant',
      model: body.model,
      content: blocks,
      stop_reason: blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage: usageOf(),
    };
    if (body.stream) return sse(res, message, blocks);
    replyJson(res, message);
  });
}
