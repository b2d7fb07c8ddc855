import { TapeStore } from '../../src/store/tapeStore';
import type { Entry } from '../../src/tape/entry';
import { startFakeOpenAiServer, type FakeOpenAiServer, type FakeReply } from './fakeOpenAiServer';

/**
 * Call inside a mocha `describe`: returns `serve(replies)`, which starts a scripted server for the
 * current test; it is closed after each test.
 */
export function fakeServerPerTest(): (replies: FakeReply[]) => Promise<FakeOpenAiServer> {
  let server: FakeOpenAiServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  return async (replies) => (server = await startFakeOpenAiServer(replies, 60_000));
}

/** A session's entries, read through a read-only open (the CLI has closed the tape by then). */
export async function sessionEntries(tape: string, sessionId: string): Promise<Entry[]> {
  const s = await TapeStore.open(tape, { readOnly: true });
  try {
    return s.entries(sessionId);
  } finally {
    await s.close();
  }
}
