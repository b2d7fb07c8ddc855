import * as vscode from 'vscode';
import * as z from 'zod';
import { LOCAL_SERVERS, probeLocalServers, type LocalServer, type ProbeResult } from '../../agent/model/localServers';
import { abortSignalOf } from '../cancellation';
import { API_KEY_SECRET, settingsWithPick } from './providerSettings';

export const SET_UP_MODEL = 'agentTape.setUpModel';
const MANAGE_MODELS = 'agentTape.manageModels';

/** What the set-up did, for the walkthrough's tests and the log. */
export type SetUpOutcome = { configured: { server: string; baseUrl: string; model: string } } | { chose: 'copilot' | 'manage' | 'nothing' };

// `executeCommand('agentTape.setUpModel', { servers, model })` probes those servers and picks that model without asking, for tests.
const automation = z.optional(
  z.object({ servers: z.array(z.object({ name: z.string(), port: z.number().int().min(1).max(65535) })).optional(), model: z.string().optional() }),
);

type Choice = vscode.QuickPickItem & ({ server: ProbeResult & { status: 'found' }; model: string } | { action: 'copilot' | 'manage' });

/**
 * "Tape: Set Up a Model…": looks for OpenAI-compatible servers on this machine (localServers.ts),
 * offers their models, and makes the picked one the own provider's; with none found, it explains
 * the other ways: Copilot's models, or a server of one's own through Manage Models.
 */
export async function setUpModel(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, arg?: unknown): Promise<SetUpOutcome> {
  const given = automation.safeParse(arg).data;
  const servers: readonly LocalServer[] = given?.servers ?? LOCAL_SERVERS;
  const results = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'Agent Tape: looking for model servers on this machine…', cancellable: true },
    async (_progress, token) => {
      const abort = abortSignalOf(token);
      try {
        return await probeLocalServers({ servers, signal: abort.signal });
      } finally {
        abort.dispose();
      }
    },
  );
  for (const r of results)
    log.info(`model set-up: ${r.name} at ${r.baseUrl}: ${r.status === 'found' ? `${r.models.length} model(s)` : `${r.status}, ${r.detail}`}`);
  const found = results.filter((r): r is ProbeResult & { status: 'found' } => r.status === 'found' && r.models.length > 0);

  let choice: Choice | undefined;
  if (given?.model !== undefined) {
    const server = found.find((r) => r.models.includes(given.model as string));
    choice = server === undefined ? undefined : { label: given.model, server, model: given.model };
  } else {
    choice = await vscode.window.showQuickPick(choicesOf(found, servers), {
      title: 'Agent Tape: Set Up a Model',
      placeHolder:
        found.length > 0
          ? 'Pick a model of a server running on this machine'
          : `No model server answered on this machine (${servers.map((s) => `${s.name} ${s.port}`).join(', ')}). Choose another way:`,
      matchOnDescription: true,
      ignoreFocusOut: true,
    });
  }
  if (choice === undefined) return { chose: 'nothing' };
  if ('action' in choice) {
    if (choice.action === 'manage') await vscode.commands.executeCommand(MANAGE_MODELS);
    else await useCopilot();
    return { chose: choice.action };
  }
  await configure(context, log, choice.server, choice.model);
  return { configured: { server: choice.server.name, baseUrl: choice.server.baseUrl, model: choice.model } };
}

function choicesOf(found: readonly (ProbeResult & { status: 'found' })[], servers: readonly LocalServer[]): Choice[] {
  const choices: Choice[] = [];
  for (const server of found) {
    choices.push({ label: `${server.name} at ${server.baseUrl}`, kind: vscode.QuickPickItemKind.Separator } as Choice);
    for (const model of server.models) choices.push({ label: model, description: server.name, server, model });
  }
  choices.push({ label: 'Other ways', kind: vscode.QuickPickItemKind.Separator } as Choice);
  choices.push({
    label: '$(copilot) Use GitHub Copilot’s models',
    detail: 'Sign in to Copilot; its models show in the chat’s model picker, and @tape uses the one picked there.',
    action: 'copilot',
  });
  choices.push({
    label: '$(server) Another server or a URL…',
    detail:
      `Any OpenAI-compatible server (Ollama, LM Studio, llama.cpp, vLLM, OpenAI, …): set its base URL and models. ${found.length === 0 ? `Started on its usual port (${servers.map((s) => s.port).join(', ')}), it is found here too.` : ''}`.trim(),
    action: 'manage',
  });
  return choices;
}

async function useCopilot(): Promise<void> {
  // VS Code's own chat set-up (sign-in, Copilot's install); without it, the Chat view offers the same.
  try {
    await vscode.commands.executeCommand('workbench.action.chat.triggerSetup');
  } catch {
    await vscode.commands.executeCommand('workbench.action.chat.open');
  }
}

async function configure(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, server: ProbeResult, model: string): Promise<void> {
  const config = vscode.workspace.getConfiguration('agentTape.provider');
  const next = settingsWithPick(config.get('baseUrl'), config.get('models'), { baseUrl: server.baseUrl, model });
  if (config.get('baseUrl') !== next.baseUrl && (await context.secrets.get(API_KEY_SECRET)) !== undefined) {
    // The key was meant for another server; a local one needs none, and would receive it.
    const clear = 'Clear the Key';
    const answer = await vscode.window.showWarningMessage(
      `An API key is set for the model server configured now. ${server.name} on this machine needs none; clear the key so that it is not sent there?`,
      { modal: true },
      clear,
      'Keep It',
    );
    if (answer === clear) {
      await context.secrets.delete(API_KEY_SECRET);
      log.info('model set-up: API key cleared');
    }
  }
  // User settings: the server runs on this machine, whatever folder is open.
  await config.update('baseUrl', next.baseUrl, vscode.ConfigurationTarget.Global);
  await config.update('models', next.models, vscode.ConfigurationTarget.Global);
  log.info(`model set-up: ${model} of ${server.name} at ${server.baseUrl} is the own provider's`);
  const openChat = 'Open Chat';
  void vscode.window
    .showInformationMessage(`Agent Tape: ${model} (${server.name}) is set up. Pick it in the chat's model picker (under "Agent Tape") and ask @tape.`, openChat)
    .then((c) => {
      if (c === openChat) void vscode.commands.executeCommand('workbench.action.chat.open', { query: '@tape ', isPartialQuery: true });
    });
}
