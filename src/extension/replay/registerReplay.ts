import * as vscode from 'vscode';
import * as z from 'zod';
import { OpenTape } from '../../agent/session/openTape';
import { REPLAY_SCHEME, replayDocumentPath } from '../../replay/replayDocument';
import { openReplayTape } from '../../replay/replayTape';
import { INSPECTOR_PANEL } from '../inspector/inspectorPanel';
import type { Deps } from '../deps';
import { REPLAY_DEBUG_TYPE, ReplayDebugSession, type ReplayHost } from './debugSession';
import { ReplayDocuments } from './replayDocuments';
import { replayCursor } from './replayCursorEvents';

const REPLAY_COMMAND = 'agentTape.replaySession';
const TAPE_EDITOR = 'agentTape.tapeFile';

/**
 * What "Tape: Replay Session" is run with: nothing (the tape file in the active editor, else the
 * workspace tape), a session id of the workspace tape, a "Tape Sessions" row, a tape file's URI
 * (the editor title), or both from the inspector.
 */
const replayArg = z.union([
  z.undefined(),
  z
    .string()
    .min(1)
    .transform((sessionId) => ({ sessionId, tapeFile: undefined })),
  z.looseObject({ sessionId: z.string().min(1).optional(), tapeFile: z.string().min(1).optional() }),
]);

/** The tape file open in the active tab's tape editor, if that is what the active tab shows. */
function activeTapeFile(): string | undefined {
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  return input instanceof vscode.TabInputCustom && input.viewType === TAPE_EDITOR ? input.uri.fsPath : undefined;
}

/** Whether the active tab is a Tape Inspector: a tape file's editor or an inspector panel. */
function inspectorActive(): boolean {
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  return (
    (input instanceof vscode.TabInputCustom && input.viewType === TAPE_EDITOR) ||
    (input instanceof vscode.TabInputWebview && input.viewType.endsWith(INSPECTOR_PANEL))
  );
}

/**
 * The step replay in VS Code: the inline debug adapter (one ReplayDebugSession per debug session),
 * the launch configuration defaults, the replay documents and the command. Every stop is fired on
 * `replayCursor`, which inspectors on the same tape follow.
 */
export function registerReplay(deps: Pick<Deps, 'log' | 'tape'>): vscode.Disposable {
  const documents = new ReplayDocuments();
  const host: ReplayHost = {
    // Even the workspace tape is read from its own read-only copy: a takeover or a reopen of the
    // workspace store cannot pull the tape from under a replay, and a replay can never write.
    openTape: async (file) => {
      const tape = await openReplayTape(file ?? (await deps.tape.open()).file);
      const open = new OpenTape(tape.store);
      const served = documents.serve(tape.file, open);
      deps.log.info(`replay: opened ${tape.file} read-only`);
      return {
        ...tape,
        reader: open.reader,
        release: async () => {
          served.dispose();
          await tape.release();
        },
      };
    },
    cursorMoved: (at) => replayCursor.fire(at),
  };

  const configurations: vscode.DebugConfigurationProvider = {
    // F5 without a launch.json: replay the tape in the active editor, else the workspace tape.
    resolveDebugConfiguration(_folder, config) {
      if (config.type === undefined && config.request === undefined && config.name === undefined) {
        const tape = activeTapeFile();
        return { type: REPLAY_DEBUG_TYPE, request: 'launch', name: 'Replay a tape', ...(tape === undefined ? {} : { tape }), stopOnEntry: true };
      }
      return config;
    },
  };

  return vscode.Disposable.from(
    vscode.debug.registerDebugAdapterDescriptorFactory(REPLAY_DEBUG_TYPE, {
      createDebugAdapterDescriptor: () => new vscode.DebugAdapterInlineImplementation(new ReplayDebugSession(host)),
    }),
    vscode.debug.registerDebugConfigurationProvider(REPLAY_DEBUG_TYPE, configurations),
    vscode.workspace.registerTextDocumentContentProvider(REPLAY_SCHEME, documents),
    // The log says where each replay stopped, so a walk through a tape can be retraced afterwards.
    replayCursor.event((at) =>
      deps.log.info(`replay: ${at.entryId === null ? 'ended' : 'stopped at'} ${at.sessionId}${at.entryId === null ? '' : `#${at.entryId}`} of ${at.tapeFile}`),
    ),
    vscode.commands.registerCommand(REPLAY_COMMAND, async (arg?: unknown) => {
      const parsed = replayArg.safeParse(arg instanceof vscode.Uri ? { tapeFile: arg.fsPath } : arg);
      if (!parsed.success) {
        void vscode.window.showErrorMessage('Tape: Replay Session needs a session id, a session of the Tape Sessions view or a tape file.');
        return;
      }
      const { sessionId, tapeFile } = parsed.data ?? { sessionId: undefined, tapeFile: activeTapeFile() };
      const config: vscode.DebugConfiguration = {
        type: REPLAY_DEBUG_TYPE,
        request: 'launch',
        name: sessionId === undefined ? 'Replay a tape' : `Replay ${sessionId}`,
        stopOnEntry: true,
        ...(tapeFile === undefined ? {} : { tape: tapeFile }),
        ...(sessionId === undefined ? {} : { session: sessionId }),
      };
      // From an inspector, the replay document opens beside it: the debugger then reveals each stop
      // there, and the inspector stays in view, following the cursor.
      if (sessionId !== undefined && inspectorActive()) {
        const file = tapeFile ?? (await deps.tape.open()).file;
        await vscode.window.showTextDocument(vscode.Uri.parse(replayDocumentPath(file, sessionId)), {
          viewColumn: vscode.ViewColumn.Beside,
          preserveFocus: true,
          preview: false,
        });
      }
      if (!(await vscode.debug.startDebugging(vscode.workspace.workspaceFolders?.[0], config))) {
        deps.log.warn(`replay: could not start ${JSON.stringify(config)}`);
      }
    }),
  );
}
