import * as vscode from 'vscode';
import type { ToolCall } from '../../agent/model/modelPort';
import { OpenAiCompatibleModel } from '../../agent/model/openAiCompatible';
import { ProviderError } from '../../agent/model/providerError';
import { TokenEstimator } from '../../agent/model/tokenEstimator';
import { errorMessage } from '../../tape/errorMessage';
import { ALLOWED_BASE_URLS_KEY, allowedBaseUrls, keyConsentPrompt, keyNeedsConsent, keyWithheldDetail } from './keyConsent';
import { fromLmRequestMessages, fromLmTools } from './lmMessages';
import { API_KEY_SECRET, OWN_VENDOR, parseProviderSettings, type ConfiguredModel, type ProviderSettings } from './providerSettings';

/**
 * The models of the OpenAI-compatible server in `agentTape.provider.*`, offered in every chat's
 * model picker (and so to `@tape`) through VS Code's language model API.
 *
 * Failures are thrown as the core's `ProviderError`s: only an error's name and message cross
 * VS Code to the caller, and that message starts with the failure's headline, from which
 * `LmModelPort` recovers the class (so `@tape` can say the key was refused rather than "error").
 *
 * The key goes to a base URL that this workspace's settings chose only once the user allowed that
 * address for this workspace (see keyConsent.ts); until then nothing is sent at all.
 */
export class OwnModelProvider implements vscode.LanguageModelChatProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeLanguageModelChatInformation = this.changed.event;
  private settings: ProviderSettings;
  /** One client per model, kept so its token estimator stays calibrated; rebuilt when the key changes. */
  private readonly clients = new Map<string, { apiKey: string; model: OpenAiCompatibleModel }>();
  private readonly estimator = new TokenEstimator();
  private readonly disposables: vscode.Disposable[];
  /** The question being asked per base URL, so concurrent requests wait for one answer instead of stacking dialogs. */
  private readonly asking = new Map<string, Promise<boolean>>();

  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly workspaceState: vscode.Memento,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.settings = this.readSettings();
    this.disposables = [
      this.changed,
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (!e.affectsConfiguration('agentTape.provider')) return;
        this.settings = this.readSettings();
        this.clients.clear();
        this.changed.fire();
      }),
      // Also fires for a key set in another window: secrets are shared between them.
      secrets.onDidChange((e) => {
        if (e.key === API_KEY_SECRET) this.keyChanged();
      }),
    ];
  }

  /** The settings in force, for the Manage Models command. */
  get current(): ProviderSettings {
    return this.settings;
  }

  /** Tells the model picker to ask again, e.g. after a key was set here. */
  keyChanged(): void {
    this.changed.fire();
  }

  provideLanguageModelChatInformation(): vscode.LanguageModelChatInformation[] {
    const host = hostOf(this.settings.baseUrl);
    return this.settings.models.map((m) => ({
      id: m.id,
      name: m.name,
      family: m.id,
      version: m.id,
      detail: host,
      tooltip: `${m.id} at ${host} (OpenAI-compatible), ${m.contextWindow} tokens`,
      maxInputTokens: m.contextWindow - m.maxOutput,
      maxOutputTokens: m.maxOutput,
      capabilities: { toolCalling: m.toolCalling, imageInput: false },
    }));
  }

  async provideLanguageModelChatResponse(
    info: vscode.LanguageModelChatInformation,
    messages: readonly vscode.LanguageModelChatRequestMessage[],
    options: vscode.ProvideLanguageModelChatResponseOptions,
    progress: vscode.Progress<vscode.LanguageModelResponsePart>,
    token: vscode.CancellationToken,
  ): Promise<void> {
    const controller = new AbortController();
    const onCancel = token.onCancellationRequested(() => controller.abort());
    if (token.isCancellationRequested) controller.abort();
    try {
      const configured = this.configured(info.id);
      const model = await this.client(configured);
      const request = {
        messages: fromLmRequestMessages(messages),
        // A server that cannot call tools may refuse a request that offers some.
        tools: configured.toolCalling ? fromLmTools(options.tools ?? []) : [],
        maxOutput: configured.maxOutput,
      };
      for await (const event of model.stream(request, controller.signal)) {
        if (event.type === 'text') progress.report(new vscode.LanguageModelTextPart(event.delta));
        else if (event.type === 'tool_call') progress.report(toolCallPart(event.call));
      }
    } catch (e) {
      const error = e instanceof ProviderError ? e : new ProviderError('server', { detail: errorMessage(e) });
      this.log.warn(`model ${info.id}: ${error.message}`);
      throw error;
    } finally {
      onCancel.dispose();
    }
  }

  async provideTokenCount(info: vscode.LanguageModelChatInformation, text: string | vscode.LanguageModelChatRequestMessage): Promise<number> {
    const input = typeof text === 'string' ? text : fromLmRequestMessages([text]);
    // A model that answered before counts with the estimator its server's usage calibrated.
    const model = this.clients.get(info.id)?.model;
    return model ? model.countTokens(input) : this.estimator.count(input);
  }

  /** Something to dispose with the provider (its registration). */
  own(disposable: vscode.Disposable): void {
    this.disposables.push(disposable);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    this.clients.clear();
  }

  private configured(id: string): ConfiguredModel {
    const found = this.settings.models.find((m) => m.id === id);
    if (found === undefined) throw new ProviderError('model_missing', { detail: `"${id}" is no longer in agentTape.provider.models` });
    return found;
  }

  private async client(m: ConfiguredModel): Promise<OpenAiCompatibleModel> {
    const apiKey = (await this.secrets.get(API_KEY_SECRET)) ?? '';
    await this.keyMayGo(this.settings.baseUrl, apiKey);
    const cached = this.clients.get(m.id);
    if (cached?.apiKey === apiKey) return cached.model;
    const model = new OpenAiCompatibleModel({
      baseURL: this.settings.baseUrl,
      apiKey,
      model: m.id,
      vendor: OWN_VENDOR,
      contextWindow: m.contextWindow,
      maxOutput: m.maxOutput,
    });
    this.clients.set(m.id, { apiKey, model });
    return model;
  }

  /** Throws `key_withheld` unless the key may go to `baseUrl`, asking the user when the workspace chose the address. */
  private async keyMayGo(baseUrl: string, apiKey: string): Promise<void> {
    const allowed = allowedBaseUrls.parse(this.workspaceState.get<unknown>(ALLOWED_BASE_URLS_KEY));
    const scopes = vscode.workspace.getConfiguration('agentTape.provider').inspect<unknown>('baseUrl');
    if (!keyNeedsConsent({ baseUrl, scopes, hasKey: apiKey !== '', allowed })) return;
    let asking = this.asking.get(baseUrl);
    if (asking === undefined) {
      asking = this.askToSendKey(baseUrl);
      this.asking.set(baseUrl, asking);
      const done = () => this.asking.delete(baseUrl);
      asking.then(done, done);
    }
    if (!(await asking)) throw new ProviderError('key_withheld', { detail: keyWithheldDetail(baseUrl) });
  }

  private async askToSendKey(baseUrl: string): Promise<boolean> {
    const { message, detail } = keyConsentPrompt(baseUrl);
    const choice = await vscode.window.showWarningMessage(message, { modal: true, detail }, ALLOW);
    if (choice !== ALLOW) {
      this.log.warn(`model provider: the API key was not sent to ${hostOf(baseUrl)}, which this workspace's settings chose`);
      return false;
    }
    // Read again: another address may have been allowed while this dialog was open.
    const allowed = allowedBaseUrls.parse(this.workspaceState.get<unknown>(ALLOWED_BASE_URLS_KEY));
    await this.workspaceState.update(ALLOWED_BASE_URLS_KEY, [...allowed, baseUrl]);
    this.log.info(`model provider: the API key may go to ${hostOf(baseUrl)} in this workspace (the user allowed it)`);
    return true;
  }

  private readSettings(): ProviderSettings {
    const config = vscode.workspace.getConfiguration('agentTape.provider');
    const settings = parseProviderSettings(config.get<unknown>('baseUrl'), config.get<unknown>('models'));
    for (const problem of settings.problems) this.log.warn(problem);
    // Without a usable address the picker just shows no models; say why where the user looks.
    if (settings.baseUrl === '' && settings.problems.length > 0) void vscode.window.showWarningMessage(`Agent Tape: ${settings.problems.join('; ')}.`);
    if (settings.baseUrl !== '') this.log.info(`model provider: ${settings.models.length} model(s) at ${hostOf(settings.baseUrl)}`);
    return settings;
  }
}

/** VS Code's tool-call part holds an object; a call whose arguments are not one cannot be handed on. */
function toolCallPart(call: ToolCall): vscode.LanguageModelToolCallPart {
  if (!call.valid)
    throw new ProviderError('bad_response', { detail: `the model called "${call.name}" but ${call.problem}: ${call.rawArguments.slice(0, 200)}` });
  return new vscode.LanguageModelToolCallPart(call.id, call.name, call.arguments);
}

const ALLOW = 'Allow';

/** Host and port: what the picker and the log need to name the server. */
function hostOf(baseUrl: string): string {
  return baseUrl === '' ? '' : new URL(baseUrl).host;
}
