import * as vscode from 'vscode';
import * as z from 'zod/mini';
import type { RebuiltRequest } from '../../rerun/rebuildRequest';
import type { Variation } from '../../rerun/variation';
import type { TapeReader } from '../../store/lineage';
import { summaryOf } from '../../tape/entrySummary';

/** A model named by a caller (a test, a script) instead of picked: `vendor` and `id` as `vscode.lm` reports them. */
export const modelChoice = z.object({ vendor: z.string(), id: z.string() });
export type ModelChoice = z.infer<typeof modelChoice>;

/**
 * A model from every model VS Code offers (`vscode.lm.selectChatModels()`), the recorded one
 * first and marked; `given` picks without asking. None available: says so and offers the set-up.
 */
export async function pickChatModel(title: string, recorded: ModelChoice | null, given?: ModelChoice): Promise<vscode.LanguageModelChat | undefined> {
  const models = await vscode.lm.selectChatModels();
  if (given !== undefined) {
    const found = models.find((m) => m.vendor === given.vendor && m.id === given.id);
    if (found === undefined) throw new Error(`VS Code offers no model ${given.vendor}/${given.id}`);
    return found;
  }
  if (models.length === 0) {
    const setUp = 'Set Up a Model…';
    if ((await vscode.window.showWarningMessage('Agent Tape: VS Code offers no language model to send the request to.', setUp)) === setUp)
      await vscode.commands.executeCommand('agentTape.setUpModel');
    return undefined;
  }
  const isRecorded = (m: vscode.LanguageModelChat) => recorded !== null && m.vendor === recorded.vendor && m.id === recorded.id;
  const sorted = [...models].sort((a, b) => Number(isRecorded(b)) - Number(isRecorded(a)));
  const picked = await vscode.window.showQuickPick(
    sorted.map((m) => ({
      label: m.name,
      description: `${isRecorded(m) ? 'recorded · ' : ''}${m.vendor} · ${m.id}`,
      detail: `${m.family}, ${m.maxInputTokens} input tokens`,
      model: m,
    })),
    { title, placeHolder: 'Model to send the request to', matchOnDescription: true },
  );
  return picked?.model;
}

type VariationKind = 'none' | 'systemPrompt' | 'drop' | 'removeTools';

/**
 * A variation of the rebuilt request, one kind at a time, in QuickPicks (keyboard first): none,
 * another system prompt (an input box holding the recorded one), context items dropped (by entry,
 * several), tools removed (several). Undefined when the user backs out.
 */
export async function pickVariation(title: string, base: RebuiltRequest, reader: TapeReader): Promise<Variation | undefined> {
  const prompt = base.request.messages[0]?.role === 'system' ? base.request.messages[0].content : null;
  const droppable = base.recorded.included.filter((i) => i.entryId !== null);
  const kinds: (vscode.QuickPickItem & { choice: VariationKind })[] = [
    { choice: 'none', label: 'No change', description: 'the recorded request exactly' },
    ...(prompt === null ? [] : [{ choice: 'systemPrompt' as const, label: 'Another system prompt…', description: 'edit the prompt in force' }]),
    ...(droppable.length === 0 ? [] : [{ choice: 'drop' as const, label: 'Drop context items…', description: `${droppable.length} on the tape` }]),
    ...(base.request.tools.length === 0
      ? []
      : [{ choice: 'removeTools' as const, label: 'Remove tools…', description: `${base.request.tools.length} offered` }]),
  ];
  const picked = await vscode.window.showQuickPick(kinds, { title, placeHolder: 'What to change before sending it again' });
  switch (picked?.choice) {
    case undefined:
      return undefined;
    case 'none':
      return {};
    case 'systemPrompt': {
      const text = await vscode.window.showInputBox({ title, prompt: 'System prompt to send instead of the recorded one', value: prompt ?? '' });
      return text === undefined ? undefined : { systemPrompt: text };
    }
    case 'drop': {
      const picked = await vscode.window.showQuickPick(
        droppable.map((i) => {
          const entry = reader.getEntry(base.sessionId, i.entryId ?? 0);
          return {
            label: `#${i.entryId} ${i.role}`,
            description: `${i.reason} · ${i.tokens} tokens`,
            detail: entry === undefined ? undefined : summaryOf(entry.kind, entry.name, entry.payload),
            entryId: i.entryId ?? 0,
          };
        }),
        { title, placeHolder: 'Context items to leave out (a message goes with its tool calls and results)', canPickMany: true, matchOnDetail: true },
      );
      return picked === undefined || picked.length === 0 ? undefined : { drop: picked.map((p) => p.entryId) };
    }
    case 'removeTools': {
      const picked = await vscode.window.showQuickPick(
        base.request.tools.map((t) => ({ label: t.name, detail: t.description })),
        { title, placeHolder: 'Tools to take out of the request', canPickMany: true },
      );
      return picked === undefined || picked.length === 0 ? undefined : { tools: { remove: picked.map((p) => p.label) } };
    }
  }
}
