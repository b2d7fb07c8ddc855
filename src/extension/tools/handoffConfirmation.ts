import { tapeHandoffTool } from '../../agent/tools/tapeHandoff';
import { codeSpan, shownBlock } from './markdownCode';

/** The session a call from another chat would leave its handoff in: the one `@tape` used last. */
export interface HandoffTarget {
  sessionId: string;
  title: string | null;
}

/**
 * What VS Code asks before another chat's model leaves a handoff on the tape. The registered
 * `tape_handoff` is only ever called from outside `@tape` (`@tape`'s toolbox runs the core's own),
 * and a handoff changes what `@tape`'s next request in that session starts from, so such a call
 * is the user's to allow. None when there is nothing to confirm: no session to write to, or input
 * the tool rejects anyway (the call then fails with the tool's own error, having changed nothing).
 * Kept free of `vscode` for unit tests; the message is Markdown with the model's text in code.
 */
export function handoffConfirmation(input: unknown, target: HandoffTarget | undefined): { title: string; message: string } | undefined {
  if (target === undefined) return undefined;
  const parsed = tapeHandoffTool.inputSchema.safeParse(input);
  if (!parsed.success) return undefined;
  const { name, summary, state } = parsed.data;
  const session = target.title === null ? `session ${codeSpan(target.sessionId)}` : `session ${codeSpan(target.title)} (${codeSpan(target.sessionId)})`;
  const lines = [
    `Another chat asks to leave the handoff ${codeSpan(`handoff/${name}`)} in the tape's ${session}, the one \`@tape\` used last. From \`@tape\`'s next request there, the context starts from this summary instead of the history before it (nothing is deleted).`,
    '',
    shownBlock(summary, ''),
  ];
  if (state !== undefined) lines.push('', 'State carried over:', '', shownBlock(JSON.stringify(state, null, 2), 'json'));
  return { title: 'Leave a handoff on the tape?', message: lines.join('\n') };
}
