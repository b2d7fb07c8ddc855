// A scripted Gemini API on 127.0.0.1 for recording Gemini CLI sessions (scripts/record-agents/gemini.mjs).
// Each scenario is picked by a word of the session's prompts and advanced by how many tool results
// follow the last typed prompt; every reply carries usage whose figures differ per request (cached
// and thoughts included), so a test can tell them apart. Every request is logged to `log`.
import { eventStream, replyJson, startModelServer } from './recording.mjs';

const textOf = (content) => (content?.parts ?? []).map((p) => p.text ?? '').join('');
const isTyped = (content) => content.role === 'user' && !(content.parts ?? []).some((p) => p.functionResponse);

/** An object that fits a JSON schema: the subagent's complete_task arguments. */
function fill(schema) {
  const type = String(schema?.type ?? '').toLowerCase();
  if (type === 'object') return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, v]) => [k, fill(v)]));
  if (type === 'array') return [fill(schema.items)];
  if (type === 'number' || type === 'integer') return 1;
  if (type === 'boolean') return true;
  return 'b.txt says "bye from b.txt".';
}

/** The parts the model answers with to a streamed request. */
function scripted(body, dir) {
  const contents = body.contents ?? [];
  const decls = (body.tools ?? []).flatMap((t) => t.functionDeclarations ?? []);
  const typed = contents.filter(isTyped).map(textOf).join('\n');
  const lastTyped = contents.findLastIndex(isTyped);
  const step = contents.slice(lastTyped).filter((c) => c.role === 'user' && !isTyped(c)).length;
  const file = (name) => `${dir}/${name}`;
  const call = (name, args) => ({ functionCall: { name, args } });
  const complete = decls.find((d) => d.name === 'complete_task');
  if (complete !== undefined)
    return [[call('read_file', { file_path: file('b.txt') })], [call('complete_task', fill(complete.parametersJsonSchema ?? complete.parameters))]][
      Math.min(step, 1)
    ];
  if (typed.includes('say it again')) return [{ text: 'c.txt says "see you".' }];
  if (typed.includes('Read a.txt and change'))
    return [
      [{ text: 'The user wants a.txt read first.', thought: true }, call('read_file', { file_path: file('a.txt') })],
      [call('replace', { file_path: file('a.txt'), old_string: 'hello', new_string: 'howdy', instruction: 'Change hello to howdy' })],
      [{ text: 'a.txt said "hello from a.txt"; it now says "howdy from a.txt".' }],
    ][Math.min(step, 2)];
  if (typed.includes('Run ls'))
    return [[call('run_shell_command', { command: 'ls', description: 'Lists the project files' })], [{ text: 'The project holds a.txt, b.txt and c.txt.' }]][
      Math.min(step, 1)
    ];
  if (typed.includes('Ask a subagent'))
    return [
      [{ text: 'I will ask a subagent.' }, call('invoke_agent', { agent_name: 'generalist', prompt: `Read ${file('b.txt')} and say what it says.` })],
      [{ text: 'The subagent says b.txt says "bye from b.txt".' }],
    ][Math.min(step, 1)];
  if (typed.includes('big file')) return [[call('read_file', { file_path: file('c.txt') })], [{ text: 'c.txt says "see you".' }]][Math.min(step, 1)];
  return [{ text: 'OK.' }];
}

/** What a utility request (routing, next speaker, compression) is answered with. */
function utility(body) {
  const last = textOf((body.contents ?? []).at(-1));
  if (last.includes('state_snapshot')) return [{ text: '<state_snapshot>\nThe user asked to read c.txt; it says "see you".\n</state_snapshot>' }];
  return [{ text: JSON.stringify({ reasoning: 'simple', model_choice: 'flash', next_speaker: 'user' }) }];
}

export function startServer(log, dir) {
  let n = 0;
  return startModelServer(log, (req, res, body) => {
    if (req.url.includes(':countTokens')) return replyJson(res, { totalTokens: 100 });
    const streamed = req.url.includes(':streamGenerateContent');
    const parts = streamed ? scripted(body, dir) : utility(body);
    n += 1;
    const [prompt, cached, output, thoughts] = [1000 + 37 * n, 300 + 11 * n, 40 + 3 * n, 5 + 2 * n];
    const usageMetadata = {
      promptTokenCount: prompt,
      cachedContentTokenCount: cached,
      candidatesTokenCount: output,
      thoughtsTokenCount: thoughts,
      totalTokenCount: prompt + output + thoughts,
    };
    const chunk = {
      candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
      usageMetadata,
      modelVersion: 'gemini-2.5-flash',
      responseId: `r${n}`,
    };
    if (!streamed) return replyJson(res, chunk);
    eventStream(res)(chunk);
    res.end();
  });
}
