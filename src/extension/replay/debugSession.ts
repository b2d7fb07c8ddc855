import { InitializedEvent, LoggingDebugSession, OutputEvent, Scope, Source, StackFrame, StoppedEvent, Thread } from '@vscode/debugadapter';
import type { DebugProtocol } from '@vscode/debugprotocol';
import * as path from 'path';
import * as z from 'zod';
import type { TapeReader } from '../../store/lineage';
import { ReplayBreakpoints } from '../../replay/breakpoints';
import { ReplayCursor, type ReplayStop } from '../../replay/cursor';
import { entryLines, shortText } from '../../replay/entryLines';
import { parseReplayDocumentPath, replayDocumentPath, REPLAY_EXTENSION } from '../../replay/replayDocument';
import { chooseSession } from '../../replay/replaySession';
import type { ReplayTape } from '../../replay/replayTape';
import type { ContextMessage } from '../../tape/context';
import { errorMessage } from '../../tape/errorMessage';
import type { ViewMessage } from '../../tape/fold';
import { oneLine } from '../../tape/oneLine';
import { VariableTree } from './replayVariables';

/** The debug type (package.json `debuggers`). */
export const REPLAY_DEBUG_TYPE = 'agent-tape';

/** A context message's text in its Variables row; the whole message is one level down. */
const CONTEXT_LINE_MAX = 200;

/** A replay has one thread: the cursor. */
const THREAD = 1;

/** The launch configuration, as VS Code hands it over (it adds fields of its own, which are kept). */
const launchArgs = z.looseObject({
  /** A `.tape.sqlite` or `.tape.jsonl` file; absent: the workspace tape. */
  tape: z.string().min(1).optional(),
  /** Absent: the tape's only or most recently written session. */
  session: z.string().min(1).optional(),
  stopOnEntry: z.boolean().optional(),
});
export type ReplayLaunchArguments = z.infer<typeof launchArgs> & DebugProtocol.LaunchRequestArguments;

/** Where a replay's cursor is, for whatever follows it (the inspector); `entryId` null when the replay ended. */
export interface ReplayCursorAt {
  tapeFile: string;
  sessionId: string;
  entryId: number | null;
}

/** What the debug session needs from its host: a tape to read, and someone to tell where the cursor is. */
export interface ReplayHost {
  /** Opens the tape a launch names (`undefined`: the workspace tape), read-only, with its open tape's lineage reader. */
  openTape(file: string | undefined): Promise<ReplayTape & { reader: TapeReader }>;
  cursorMoved(at: ReplayCursorAt): void;
}

interface Replay {
  tape: ReplayTape;
  reader: TapeReader;
  cursor: ReplayCursor;
}

/** The message of an error, for the person who launched the replay. */

/**
 * The step replay's debug adapter: it translates the Debug Adapter Protocol to a ReplayCursor and
 * back, and holds no replay logic of its own (the runtime/protocol split of vscode-mock-debug). It
 * imports no `vscode`, so Node tests drive it over a socket with the DAP test client. Positions
 * are lines: frame n's source is its session's replay document, whose line k shows entry k.
 */
export class ReplayDebugSession extends LoggingDebugSession {
  private replay: Replay | undefined;
  private readonly variables = new VariableTree();
  private configured!: () => void;
  private readonly configurationDone = new Promise<void>((resolve) => (this.configured = resolve));
  /** The session's, not the cursor's: a restart or a relaunch keeps them. */
  private readonly breakpoints = new ReplayBreakpoints();

  constructor(private readonly host: ReplayHost) {
    super();
    this.setDebuggerLinesStartAt1(true);
    this.setDebuggerColumnsStartAt1(true);
  }

  protected initializeRequest(response: DebugProtocol.InitializeResponse): void {
    response.body = {
      ...response.body,
      supportsConfigurationDoneRequest: true,
      supportsStepBack: true,
      supportsRestartRequest: true,
      supportsFunctionBreakpoints: true,
    };
    this.sendResponse(response);
  }

  protected configurationDoneRequest(response: DebugProtocol.ConfigurationDoneResponse): void {
    this.sendResponse(response);
    this.configured();
  }

  protected async launchRequest(response: DebugProtocol.LaunchResponse, raw: ReplayLaunchArguments): Promise<void> {
    let tape: (ReplayTape & { reader: TapeReader }) | undefined;
    try {
      const args = launchArgs.safeParse(raw);
      if (!args.success) throw new Error(`invalid launch configuration: ${z.prettifyError(args.error)}`);
      tape = await this.host.openTape(args.data.tape);
      const sessionId = chooseSession(tape.store.sessions(), args.data.session);
      const reader = tape.reader;
      const cursor = new ReplayCursor(reader, sessionId, this.breakpoints);
      this.replay = { tape, reader, cursor };
      this.console(`Replaying session ${sessionId} of ${tape.file} (${reader.headEntryId(sessionId)} entries).\n`);
      // Configuration (breakpoints) is asked for only once the tape is open, so it can be checked against it.
      this.sendEvent(new InitializedEvent());
      await this.configurationDone;
      this.sendResponse(response);
      this.stopped(args.data.stopOnEntry === false ? cursor.continue() : { reason: 'entry', description: `start of session ${sessionId}` });
    } catch (e) {
      await tape?.release().catch(() => undefined);
      this.replay = undefined;
      this.console(`Cannot replay: ${errorMessage(e)}\n`);
      this.sendErrorResponse(response, { id: 1001, format: `Cannot replay: ${errorMessage(e)}`, showUser: true });
    }
  }

  private console(text: string): void {
    this.sendEvent(new OutputEvent(text, 'console'));
  }

  private get active(): Replay {
    if (this.replay === undefined) throw new Error('no tape is being replayed');
    return this.replay;
  }

  /** Answers a request with `answer`, or with its error as the request's failure. */
  private guard<R extends DebugProtocol.Response>(response: R, answer: () => void): void {
    try {
      answer();
      this.sendResponse(response);
    } catch (e) {
      this.sendErrorResponse(response, { id: 1002, format: errorMessage(e), showUser: true });
    }
  }

  /** Moves the cursor, answers, then reports the stop (the client asks for the stack after the event). */
  private move(response: DebugProtocol.Response, step: (cursor: ReplayCursor) => ReplayStop): void {
    let stop: ReplayStop | undefined;
    this.guard(response, () => (stop = step(this.active.cursor)));
    if (stop !== undefined) this.stopped(stop);
  }

  private stopped(stop: ReplayStop): void {
    this.variables.reset();
    const event = new StoppedEvent(stop.reason, THREAD) as DebugProtocol.StoppedEvent;
    event.body.description = stop.description;
    this.sendEvent(event);
    const { tape, cursor } = this.active;
    const top = cursor.stack[cursor.stack.length - 1];
    this.host.cursorMoved({ tapeFile: tape.file, sessionId: top.sessionId, entryId: top.position });
  }

  protected nextRequest(response: DebugProtocol.NextResponse): void {
    this.move(response, (c) => c.next());
  }

  protected stepBackRequest(response: DebugProtocol.StepBackResponse): void {
    this.move(response, (c) => c.back());
  }

  protected continueRequest(response: DebugProtocol.ContinueResponse): void {
    response.body = { allThreadsContinued: true };
    this.move(response, (c) => c.continue());
  }

  protected reverseContinueRequest(response: DebugProtocol.ReverseContinueResponse): void {
    this.move(response, (c) => c.reverseContinue());
  }

  protected stepInRequest(response: DebugProtocol.StepInResponse): void {
    this.move(response, (c) => c.stepIn());
  }

  protected stepOutRequest(response: DebugProtocol.StepOutResponse): void {
    this.move(response, (c) => c.stepOut());
  }

  protected restartRequest(response: DebugProtocol.RestartResponse): void {
    this.move(response, (c) => c.restart());
  }

  protected pauseRequest(response: DebugProtocol.PauseResponse): void {
    // A replay never runs on its own: it is always stopped.
    this.sendResponse(response);
  }

  protected threadsRequest(response: DebugProtocol.ThreadsResponse): void {
    const sessionId = this.replay?.cursor.stack[0].sessionId;
    response.body = { threads: sessionId === undefined ? [] : [new Thread(THREAD, `Replay of ${sessionId}`)] };
    this.sendResponse(response);
  }

  protected stackTraceRequest(response: DebugProtocol.StackTraceResponse, args: DebugProtocol.StackTraceArguments): void {
    this.guard(response, () => {
      const { cursor, tape } = this.active;
      const frames = cursor.stack
        .map((f, depth) => {
          const e = cursor.entryAt(depth);
          const source = new Source(`${f.sessionId}${REPLAY_EXTENSION}`, replayDocumentPath(tape.file, f.sessionId));
          return new StackFrame(
            depth + 1,
            `${f.sessionId} #${f.position} ${e.kind} ${e.name}`,
            source,
            this.convertDebuggerLineToClient(f.position),
            this.convertDebuggerColumnToClient(1),
          );
        })
        .reverse();
      const start = args.startFrame ?? 0;
      const end = args.levels ? start + args.levels : frames.length;
      response.body = { stackFrames: frames.slice(start, end), totalFrames: frames.length };
    });
  }

  protected scopesRequest(response: DebugProtocol.ScopesResponse, args: DebugProtocol.ScopesArguments): void {
    this.guard(response, () => {
      const { cursor, reader } = this.active;
      const depth = args.frameId - 1;
      const sessionId = cursor.stack[depth]?.sessionId;
      if (sessionId === undefined) throw new Error(`there is no frame ${args.frameId}`);
      const text = (entryId: number): string => shortText(reader.requireEntry(sessionId, entryId));
      const v = this.variables;
      const scopes = [
        new Scope('Entry', v.ref({ named: () => Object.entries(cursor.entryAt(depth)).map(([k, x]) => v.json(k, x)) })),
        new Scope('View', v.ref({ named: () => this.viewVariables(cursor, depth, text) })),
        new Scope('Context', v.ref({ named: () => this.contextVariables(cursor, depth) }), true),
      ];
      const manifest = cursor.manifestAt(depth);
      if (manifest !== null) {
        scopes.push(
          new Scope(
            'Manifest',
            v.ref({
              named: () =>
                'error' in manifest
                  ? [v.json('error', manifest.error)]
                  : [
                      v.json('manifestHash', manifest.check.ok ? 'matches the manifest' : manifest.check.reason),
                      ...Object.entries(manifest.manifest).map(([k, x]) => v.json(k, x)),
                    ],
            }),
          ),
        );
      }
      scopes.push(new Scope('Projections', v.ref({ named: () => Object.entries(cursor.projectionsAt(depth)).map(([k, x]) => v.json(k, x)) }), true));
      response.body = { scopes };
    });
  }

  /** The folded view: its messages with their text, tool facts and anchors. */
  private viewVariables(cursor: ReplayCursor, depth: number, text: (entryId: number) => string): DebugProtocol.Variable[] {
    const v = this.variables;
    const view = cursor.viewAt(depth);
    const message = (m: ViewMessage, i: number): DebugProtocol.Variable => {
      const short = text(m.entryId);
      return v.node(`[${i}]`, `#${m.entryId} ${m.role} ${m.status}: ${short}`, {
        named: () => [
          v.json('role', m.role),
          v.json('status', m.status),
          v.json('orderSeq', m.orderSeq),
          v.json('entryId', m.entryId),
          v.json('messageId', m.messageId),
          v.json('text', short),
        ],
      });
    };
    return [
      v.json('headEntryId', view.headEntryId),
      // Copies: the view's lists change when the cursor moves, and a page may be asked for later.
      v.list('messages', [...view.messages], message),
      v.json('toolCalls', [...view.toolCalls]),
      v.json('toolResults', [...view.toolResults]),
      v.json('anchors', [...view.anchors]),
      v.json('systemPromptEntryId', view.systemPromptEntryId),
    ];
  }

  /** What the next request would be built from at this entry, before any budget cut. */
  private contextVariables(cursor: ReplayCursor, depth: number): DebugProtocol.Variable[] {
    const v = this.variables;
    const context = cursor.contextAt(depth);
    const message = (m: ContextMessage, i: number): DebugProtocol.Variable => {
      return v.node(`[${i}]`, `${m.role}${m.source === 'synthetic' ? ' (synthetic)' : ` #${m.entryId}`}: ${oneLine(m.content, CONTEXT_LINE_MAX)}`, {
        named: () => Object.entries(m).map(([k, x]) => v.json(k, x)),
      });
    };
    return [v.json('anchorEntryId', context.anchorEntryId), v.list('messages', context.messages, message)];
  }

  protected variablesRequest(response: DebugProtocol.VariablesResponse, args: DebugProtocol.VariablesArguments): void {
    this.guard(response, () => {
      response.body = { variables: this.variables.children(args) };
    });
  }

  protected setBreakPointsRequest(response: DebugProtocol.SetBreakpointsResponse, args: DebugProtocol.SetBreakpointsArguments): void {
    this.guard(response, () => {
      const wanted = args.breakpoints ?? (args.lines ?? []).map((line) => ({ line }));
      const doc = args.source.path === undefined ? null : parseReplayDocumentPath(args.source.path);
      if (doc === null) {
        response.body = { breakpoints: wanted.map(() => ({ verified: false, message: 'a replay stops only in the replay documents of its sessions' })) };
        return;
      }
      const head = this.replay?.reader.headEntryId(doc.sessionId);
      const lines = wanted.map((b) => this.convertClientLineToDebugger(b.line));
      // Before a launch there is no tape to check against: every line is taken.
      const onEntry = (l: number): boolean => head === undefined || (l >= 1 && l <= head);
      this.breakpoints.setLines(doc.sessionId, lines.filter(onEntry));
      response.body = {
        breakpoints: lines.map((l, i) =>
          onEntry(l)
            ? { verified: true, line: wanted[i].line }
            : { verified: false, line: wanted[i].line, message: `session ${doc.sessionId} has entries 1 to ${head}` },
        ),
      };
    });
  }

  protected setFunctionBreakPointsRequest(response: DebugProtocol.SetFunctionBreakpointsResponse, args: DebugProtocol.SetFunctionBreakpointsArguments): void {
    this.guard(response, () => {
      const problems = this.breakpoints.setPatterns(args.breakpoints.map((b) => b.name));
      response.body = { breakpoints: problems.map((p) => (p === null ? { verified: true } : { verified: false, message: p })) };
    });
  }

  /** The replay document of a session, for a client that cannot render the `agent-tape-replay:` scheme itself. */
  protected sourceRequest(response: DebugProtocol.SourceResponse, args: DebugProtocol.SourceArguments): void {
    this.guard(response, () => {
      const { tape, reader, cursor } = this.active;
      const doc = args.source?.path === undefined ? null : parseReplayDocumentPath(args.source.path);
      if (doc === null || path.resolve(doc.tapeFile) !== path.resolve(tape.file)) throw new Error('that is not a replay document of this replay');
      const head = cursor.stack.find((f) => f.sessionId === doc.sessionId)?.head ?? reader.headEntryId(doc.sessionId);
      response.body = { content: entryLines(reader.entries(doc.sessionId, { toEntryId: head })), mimeType: 'text/plain' };
    });
  }

  protected async disconnectRequest(response: DebugProtocol.DisconnectResponse): Promise<void> {
    await this.end();
    this.sendResponse(response);
  }

  private async end(): Promise<void> {
    const replay = this.replay;
    if (replay === undefined) return;
    this.replay = undefined;
    this.host.cursorMoved({ tapeFile: replay.tape.file, sessionId: replay.cursor.stack[0].sessionId, entryId: null });
    await replay.tape.release();
  }
}
