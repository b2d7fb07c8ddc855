import * as path from 'path';
import * as vscode from 'vscode';
import { withheldValues } from '../../agent/workspace/commandEnv';
import type { CacheWriteName } from '../../otel/genAiSpans';
import { LiveOtlpExporter, type LiveExportStatus } from '../../otel/liveExporter';
import { DEFAULT_TIMEOUT_MS, shownUrl, type OtlpEndpoint } from '../../otel/otlpEndpoint';
import { secretMask } from '../../otel/secretMask';
import type { WorkspaceStore } from '../../store/workspaceStore';
import { errorMessage } from '../../tape/errorMessage';
import type { Deps } from '../deps';
import { API_KEY_SECRET } from '../model/providerSettings';
import { readOtlpCacheTokens } from '../settings';
import { exportStatusText } from './exportStatusText';
import { headerValues } from './headerSecrets';
import { HEADER_SECRET_PREFIX, parseOtlpSettings } from './otlpSettings';
import { rateLimitedLog } from './rateLimitedLog';

/** Closing the window waits this long for the last spans: VS Code gives all of deactivation a few seconds. */
const CLOSE_DEADLINE_MS = 1500;

const SHOW_LOG = 'agentTape.otlp.showLog';

/** What the settings and SecretStorage ask for, once read and checked. */
interface Wanted {
  endpoint: OtlpEndpoint;
  content: boolean;
  cacheWriteName: CacheWriteName;
  mask: (text: string) => string;
}

/**
 * Live export of the workspace tape to the collector `agentTape.otlp.endpoint` names, while that
 * is set, the workspace is trusted and this window writes the tape (a second window on the same
 * workspace follows the tape read-only: the window that writes it exports it). One
 * `LiveOtlpExporter` at a time, made again when the settings, a header's value or the provider's
 * key change; its status in a status bar item that exists only while it does. Why export is off,
 * when it was meant to be on, is said once in the log.
 */
export class LiveExport implements vscode.Disposable {
  private wanted: Wanted | undefined;
  private ws: WorkspaceStore | undefined;
  private current: { exporter: LiveOtlpExporter; ws: WorkspaceStore; wanted: Wanted } | undefined;
  /** Exporters sending their last spans; the window's close waits for them. */
  private readonly retiring = new Set<Promise<void>>();
  private readonly item: vscode.StatusBarItem;
  private readonly listeners: vscode.Disposable[];
  /** A refresh started later wins over one still reading secrets. */
  private generation = 0;
  private said: string | undefined;
  private disposed = false;

  constructor(private readonly deps: Pick<Deps, 'context' | 'log' | 'tape'>) {
    this.item = vscode.window.createStatusBarItem('agentTape.otlp', vscode.StatusBarAlignment.Right, 98);
    this.item.name = 'Agent Tape OpenTelemetry';
    this.item.command = SHOW_LOG;
    const { context, tape } = deps;
    this.listeners = [
      vscode.commands.registerCommand(SHOW_LOG, () => deps.log.show(true)),
      vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('agentTape.otlp') && this.refresh()),
      context.secrets.onDidChange((e) => (e.key.startsWith(HEADER_SECRET_PREFIX) || e.key === API_KEY_SECRET) && this.refresh()),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.refresh()),
      tape.onDidChangeState(() => this.sync()),
      tape.whenOpen((ws) => {
        this.ws = ws;
        this.sync();
        return {
          dispose: () => {
            this.ws = undefined;
            this.sync();
          },
        };
      }),
    ];
    void this.refresh();
  }

  /** The status bar item as shown, or undefined while it is hidden (integration tests). */
  get shown(): { text: string; tooltip: string } | undefined {
    return this.current === undefined ? undefined : { text: this.item.text, tooltip: String(this.item.tooltip) };
  }

  /** Reads the settings and secrets again and makes the exporter they ask for. */
  async refresh(): Promise<void> {
    const generation = ++this.generation;
    const wanted = await this.read().catch((e: unknown) => {
      this.say('warn', `OpenTelemetry live export is off: ${errorMessage(e)}`);
      return undefined;
    });
    if (generation !== this.generation || this.disposed) return;
    this.wanted = wanted;
    this.sync();
    // The tape opens on first use; live export is a use, and must hear the first append.
    if (wanted !== undefined && this.ws === undefined) void this.deps.tape.open().catch(() => undefined);
  }

  private async read(): Promise<Wanted | undefined> {
    const config = vscode.workspace.getConfiguration('agentTape.otlp');
    const parsed = parseOtlpSettings({
      endpoint: config.get('endpoint'),
      protocol: config.get('protocol'),
      content: config.get('content'),
      headers: config.get('headers'),
    });
    if (parsed.state === 'off') {
      this.say('info', this.current === undefined ? undefined : 'OpenTelemetry live export is off (agentTape.otlp.endpoint is empty)');
      return undefined;
    }
    if (parsed.state === 'invalid') throw new Error(parsed.problem);
    if (!vscode.workspace.isTrusted) {
      this.say(
        'info',
        'OpenTelemetry live export stays off in an untrusted workspace: it would send what the agent does here to a server; trust the workspace to turn it on',
      );
      return undefined;
    }
    const { url, protocol, content, headerNames } = parsed.settings;
    const values = await headerValues(this.deps.context.secrets, headerNames);
    if ('missing' in values)
      throw new Error(`the header ${values.missing} listed in agentTape.otlp.headers has no value: set it with "Tape: Set OpenTelemetry Header…"`);
    const apiKey = await this.deps.context.secrets.get(API_KEY_SECRET);
    // Content is the user's choice; the secrets this window knows of stay out of it even then (as the CLI's --content).
    const secrets = [...Object.values(values.headers), ...(apiKey === undefined ? [] : [apiKey]), ...withheldValues(process.env)];
    return {
      endpoint: { url, protocol, headers: values.headers, timeoutMs: DEFAULT_TIMEOUT_MS },
      content,
      cacheWriteName: readOtlpCacheTokens(this.deps.log),
      mask: secretMask(secrets),
    };
  }

  /** Makes the exporter match what is wanted and what the tape allows. */
  private sync(): void {
    const ws = this.ws;
    const wanted = this.wanted;
    const writable = ws !== undefined && ws.state.mode === 'writable';
    if (this.current !== undefined && (this.current.ws !== ws || this.current.wanted !== wanted || !writable)) this.retire();
    if (this.disposed || wanted === undefined || ws === undefined || this.current !== undefined) return this.showItem();
    if (ws.state.mode === 'readOnly') {
      this.say('info', `OpenTelemetry live export waits: ${ws.state.reason}; that window exports the tape`);
      return this.showItem();
    }
    const log = this.deps.log;
    const exporter: LiveOtlpExporter = new LiveOtlpExporter(ws, {
      endpoint: wanted.endpoint,
      tape: path.basename(ws.file),
      content: wanted.content,
      cacheWriteName: wanted.cacheWriteName,
      mask: wanted.mask,
      log: rateLimitedLog((level, line) => log[level](line)),
      onStatus: (status) => this.current?.exporter === exporter && this.showItem(status),
    });
    this.current = { exporter, ws, wanted };
    this.say('info', `OpenTelemetry live export to ${shownUrl(wanted.endpoint.url)} (${wanted.endpoint.protocol}, content ${wanted.content ? 'on' : 'off'})`);
    this.showItem();
  }

  private retire(): void {
    const old = this.current;
    if (old === undefined) return;
    this.current = undefined;
    // Its open turns are read now, before the store can close; the sending goes on in the background.
    const closing = old.exporter
      .dispose(CLOSE_DEADLINE_MS)
      .catch((e: unknown) => this.deps.log.error(`OpenTelemetry: closing the exporter: ${errorMessage(e)}`));
    this.retiring.add(closing);
    void closing.finally(() => this.retiring.delete(closing));
  }

  private showItem(status?: LiveExportStatus): void {
    const current = this.current;
    if (current === undefined) return this.item.hide();
    const shown = exportStatusText(status ?? current.exporter.status(), current.wanted.endpoint.url);
    this.item.text = shown.text;
    this.item.tooltip = shown.tooltip;
    this.item.accessibilityInformation = { label: shown.tooltip };
    this.item.backgroundColor = shown.failing ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.item.show();
  }

  /** One line per change of why export is (not) on; undefined forgets the last, so it is said again. */
  private say(level: 'info' | 'warn', line: string | undefined): void {
    if (line === this.said) return;
    this.said = line;
    if (line !== undefined) this.deps.log[level](line);
  }

  /** Stops exporting and waits (at most CLOSE_DEADLINE_MS) for the last spans to go. */
  async close(): Promise<void> {
    this.disposed = true;
    this.retire();
    this.item.hide();
    await Promise.all(this.retiring);
  }

  dispose(): void {
    void this.close();
    for (const l of this.listeners) l.dispose();
    this.item.dispose();
  }
}
