import * as vscode from 'vscode';
import type { Deps } from '../deps';
import { SET_UP_MODEL, setUpModel } from './modelSetUp';
import { OwnModelProvider } from './ownProvider';
import { API_KEY_SECRET, OWN_VENDOR } from './providerSettings';

const SET_API_KEY = 'agentTape.setApiKey';
const MANAGE_MODELS = 'agentTape.manageModels';

/**
 * Our own model provider, under the vendor package.json declares, and its commands: "Tape: Set Up
 * a Model…" (local servers found in one click), "Tape: Set API Key…" and "Tape: Manage Models…"
 * (the model picker's management command).
 */
export function registerOwnProvider(deps: Pick<Deps, 'context' | 'log'>): vscode.Disposable {
  const { context, log } = deps;
  const provider = new OwnModelProvider(context.secrets, context.workspaceState, log);
  provider.own(vscode.lm.registerLanguageModelChatProvider(OWN_VENDOR, provider));
  const storeKey = async (key: string): Promise<void> => {
    if (key === '') {
      await context.secrets.delete(API_KEY_SECRET);
      log.info('model provider: API key cleared');
    } else {
      await context.secrets.store(API_KEY_SECRET, key);
      // That a key was set, never the key itself.
      log.info('model provider: API key set');
    }
    provider.keyChanged();
  };

  return vscode.Disposable.from(
    provider,
    vscode.commands.registerCommand(SET_UP_MODEL, (arg?: unknown) => setUpModel(context, log, arg)),
    // `executeCommand('agentTape.setApiKey', key)` sets it without asking (`''` clears it), for automation and tests.
    vscode.commands.registerCommand(SET_API_KEY, async (given?: unknown): Promise<void> => {
      if (typeof given === 'string') return storeKey(given.trim());
      const answer = await vscode.window.showInputBox({
        title: 'Agent Tape: API key of the model server',
        prompt: 'Stored in VS Code\'s secret storage; sent as "Authorization: Bearer <key>". Leave empty to clear the key.',
        password: true,
        ignoreFocusOut: true,
      });
      if (answer === undefined) return;
      await storeKey(answer.trim());
      void vscode.window.showInformationMessage(answer.trim() === '' ? 'Agent Tape: the API key was cleared.' : 'Agent Tape: the API key was saved.');
    }),
    vscode.commands.registerCommand(MANAGE_MODELS, async (): Promise<void> => {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'agentTape.provider');
      const { baseUrl, models, problems } = provider.current;
      const hasKey = (await context.secrets.get(API_KEY_SECRET)) !== undefined;
      const state =
        baseUrl === ''
          ? 'Set agentTape.provider.baseUrl to an OpenAI-compatible server to offer its models.'
          : `${models.length} model(s) offered${problems.length > 0 ? `, ${problems.length} setting(s) ignored (see the "Agent Tape" log)` : ''}; API key ${hasKey ? 'set' : 'not set'}.`;
      // Not awaited: the notification stays until dismissed, and the command is done once settings show.
      const setUp = 'Find Local Servers…';
      void vscode.window.showInformationMessage(`Agent Tape models: ${state}`, 'Set API Key…', setUp).then((choice) => {
        if (choice !== undefined) void vscode.commands.executeCommand(choice === setUp ? SET_UP_MODEL : SET_API_KEY);
      });
    }),
  );
}
