import * as assert from 'assert';
import { knownContextWindow } from '../../../src/tape/modelWindows';

describe('known model windows', () => {
  it('matches a family by the prefix of the id’s last segment, case-insensitively; anything else is unknown', () => {
    assert.deepStrictEqual(
      [
        'claude-sonnet-4-5',
        'anthropic/Claude-3-5-haiku',
        'gpt-5-codex',
        'openai/gpt-4.1-mini',
        'gpt-4o-2024-08-06',
        'o3-mini',
        'gemini-2.5-pro',
        'models/gemini-2.0-flash',
      ].map(knownContextWindow),
      [200_000, 200_000, 400_000, 1_047_576, 128_000, 200_000, 1_048_576, 1_048_576],
    );
    for (const id of ['', 'llama3', 'my-claude-', 'gpt-3.5-turbo', 'scripted']) assert.strictEqual(knownContextWindow(id), null, id);
  });
});
