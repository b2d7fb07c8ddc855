import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { AgentTapeApi } from '../../src/extension/extension';
import { readSessionState } from '../../src/ingest/vscodeChat/vscodeChatFormat';
import { TapeStore } from '../../src/store/tapeStore';
import { until } from './waiting';

const EXTENSION_ID = 'agent-tape.agent-tape';
const FAKE = { vendor: 'agent-tape-fake' };

/** VS Code's storage folder of this window (`workspaceStorage/<id>`): the one the workspace tape lives under. */
function workspaceStorageOf(tapeFile: string): string {
  for (let dir = path.dirname(tapeFile); dir !== path.dirname(dir); dir = path.dirname(dir))
    if (path.basename(path.dirname(dir)) === 'workspaceStorage') return dir;
  throw new Error(`${tapeFile} is not under a workspaceStorage folder`);
}

/** The session file of VS Code's chat holding a completed request with `prompt`, once VS Code has written it. */
function sessionFileWith(dir: string, prompt: string): string | undefined {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return undefined;
  }
  for (const name of names.filter((n) => /\.jsonl?$/.test(n))) {
    const file = path.join(dir, name);
    try {
      const requests = (readSessionState(file).state as { requests?: { message?: { text?: string }; modelState?: { value?: number } }[] }).requests ?? [];
      if (requests.some((r) => r.message?.text?.includes(prompt) && r.modelState?.value === 1)) return file;
    } catch {
      // Being written: the next look reads it whole.
    }
  }
  return undefined;
}

describe("VS Code's own chat sessions in a real VS Code", function () {
  this.timeout(240_000);
  let api: AgentTapeApi;
  before(async () => {
    api = await vscode.extensions.getExtension<AgentTapeApi>(EXTENSION_ID)!.activate();
  });

  it('a chat with @tape is written by VS Code to chatSessions/, and imported it has the same request and answer', async () => {
    const prompt = `hello from the VS Code chat ${Date.now()}`;
    const tapeFile = await api.workspaceTapeFile();
    const readTape = async <T>(read: (s: TapeStore) => T): Promise<T> => {
      const store = await TapeStore.open(tapeFile, { readOnly: true });
      try {
        return read(store);
      } finally {
        await store.close();
      }
    };
    // @tape's own session of the request: what it was asked and what it answered.
    const ownTurn = async () =>
      readTape((s) => {
        for (const { sessionId } of s.sessions().filter((x) => x.sessionId.startsWith('chat-'))) {
          const entries = s.entries(sessionId);
          const user = entries.find((e) => e.name === 'message/user' && String(e.payload.content).includes(prompt));
          const answer = entries.filter((e) => e.name === 'message/assistant' && e.payload.status === 'sent').at(-1);
          if (user && answer && entries.some((e) => e.name === 'turn/end'))
            return { user: String(user.payload.content), answer: String(answer.payload.content) };
        }
        return undefined;
      });

    await vscode.commands.executeCommand('workbench.action.chat.newChat');
    let own: { user: string; answer: string } | undefined;
    // A fresh profile may not have picked the model yet when the first request goes.
    for (let attempt = 1; own === undefined; attempt++) {
      await vscode.commands.executeCommand('workbench.action.chat.open', { query: `@tape ${prompt}`, modelSelector: FAKE, mode: 'ask' });
      try {
        own = await until('the answer of @tape', ownTurn, 20_000);
      } catch (e) {
        if (attempt === 3) throw e;
      }
    }

    const sessionsDir = path.join(workspaceStorageOf(tapeFile), 'chatSessions');
    // VS Code stores its chats when it saves its state (every minute, and at shutdown).
    const file = await until(`VS Code's session file in ${sessionsDir}`, () => sessionFileWith(sessionsDir, prompt), 180_000);
    const first = await vscode.commands.executeCommand<{ sessions: string[]; appended: number }>('agentTape.importAgentSessions', [file]);
    assert.ok(first && first.appended > 0, JSON.stringify(first));
    const [sessionId] = first.sessions;
    assert.ok(sessionId.startsWith('vscode-chat:'), sessionId);

    const imported = await readTape((s) => s.entries(sessionId));
    const users = imported.filter((e) => e.name === 'message/user').map((e) => String(e.payload.content));
    const answers = imported.filter((e) => e.name === 'message/assistant').map((e) => String(e.payload.content));
    const asked = users.findIndex((u) => u.includes(prompt));
    assert.ok(asked >= 0, `the request is there: ${JSON.stringify(users)}`);
    assert.strictEqual(users[asked], `@tape ${prompt}`, 'as typed in the chat');
    assert.ok(own.user.includes(prompt));
    assert.ok(answers[asked].includes(own.answer), `VS Code's answer ${JSON.stringify(answers[asked])} holds @tape's ${JSON.stringify(own.answer)}`);
    const meta = imported.find((e) => e.name === 'session/meta')?.payload.data as Record<string, unknown>;
    // Desktop VS Code names the folder in workspace.json beside chatSessions/; the server build the harness runs keeps only its name (meta.json).
    const named = fs.existsSync(path.join(path.dirname(sessionsDir), 'workspace.json')) ? vscode.workspace.workspaceFolders![0].uri.fsPath : undefined;
    assert.deepStrictEqual([meta.agent, meta.source, meta.cwd], ['vscode-chat', file, named]);
    assert.match(String(meta.model), /^agent-tape-fake\//, 'the model the request went to');
    const attempt = imported.find((e) => e.name === 'provider/attempt')?.payload.data as Record<string, unknown>;
    assert.deepStrictEqual([attempt.model, attempt.agent], [meta.model, 'agent-tape.tape'], 'the participant that answered');

    const again = await vscode.commands.executeCommand<{ appended: number }>('agentTape.importAgentSessions', [file]);
    assert.strictEqual(again?.appended, 0);

    // A second request in the same chat, whose model calls a tool: the grown file appends exactly that request.
    const second = `read it ${Date.now()}\ntool:read_file {"path":"README.md"}`;
    await vscode.commands.executeCommand('workbench.action.chat.open', { query: `@tape ${second}`, modelSelector: FAKE, mode: 'ask' });
    await until(
      `VS Code's session file with the second request`,
      () => (sessionFileWith(sessionsDir, second.split('\n')[0]) === file ? true : undefined),
      180_000,
    );
    const before = await readTape((s) => s.headEntryId(sessionId));
    const grown = await vscode.commands.executeCommand<{ appended: number }>('agentTape.importAgentSessions', [file]);
    const added = await readTape((s) => s.entries(sessionId).filter((e) => e.entryId > before));
    assert.strictEqual(grown?.appended, added.length);
    const requestId = added.find((e) => e.name === 'message/user')?.provenanceKey?.split('/')[2];
    assert.ok(
      requestId !== undefined && added.every((e) => e.name === 'session/meta' || (e.provenanceKey ?? '').includes(requestId)),
      JSON.stringify(added.map((e) => e.provenanceKey)),
    );
    assert.deepStrictEqual(
      added.filter((e) => e.kind === 'message').map((e) => [e.name, String(e.payload.content).split('\n')[0]]),
      [
        ['message/user', `@tape ${second.split('\n')[0]}`],
        ['message/assistant', String(added.find((e) => e.name === 'message/assistant')?.payload.content).split('\n')[0]],
      ],
    );
    // @tape runs its tools itself: VS Code keeps a progress line and the file as a reference, no tool invocation.
    const refs = added.find((e) => e.name === 'vscode-chat/references')?.payload.data as { references: string[] } | undefined;
    assert.ok(refs?.references.includes(path.join(vscode.workspace.workspaceFolders![0].uri.fsPath, 'README.md')), JSON.stringify(refs));
    assert.ok(added.some((e) => e.name === 'vscode-chat/part/progressMessage'));
  });
});
