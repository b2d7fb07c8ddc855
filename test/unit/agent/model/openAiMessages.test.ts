import * as assert from 'assert';
import { toChatMessages } from '../../../../src/agent/model/openAiMessages';

describe('toChatMessages', () => {
  it("folds the tape's one-message-per-call form into the assistant message that made the calls", () => {
    assert.deepStrictEqual(
      toChatMessages([
        { role: 'user', content: 'go' },
        { role: 'assistant', content: '{}', toolCallId: 'a', toolName: 'tape_info' },
        { role: 'assistant', content: '{"path":"."}', toolCallId: 'b', toolName: 'list_dir' },
        { role: 'tool', content: 'info', toolCallId: 'a', toolName: 'tape_info' },
        { role: 'tool', content: 'a.txt', toolCallId: 'b', toolName: 'list_dir' },
        { role: 'assistant', content: 'There is a.txt.' },
      ]),
      [
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'a', type: 'function', function: { name: 'tape_info', arguments: '{}' } },
            { id: 'b', type: 'function', function: { name: 'list_dir', arguments: '{"path":"."}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'a', content: 'info' },
        { role: 'tool', tool_call_id: 'b', content: 'a.txt' },
        { role: 'assistant', content: 'There is a.txt.' },
      ],
    );
  });
});
