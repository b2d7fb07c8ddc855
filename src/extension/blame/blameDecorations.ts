import * as vscode from 'vscode';
import * as z from 'zod/mini';
import type { BlameRange } from '../../blame/tapeBlame';
import { agentColour, endOfLineNotes, gutterSpans } from './blameMarks';

const blameStyle = z.enum(['gutter', 'endOfLine']);
export type BlameStyle = z.infer<typeof blameStyle>;
const DEFAULT_STYLE: BlameStyle = 'endOfLine';

/** `agentTape.blame.style`; a hand-written settings.json may hold anything: a bad value is logged and the default used. */
export function blameStyleSetting(log: vscode.LogOutputChannel): BlameStyle {
  const raw = vscode.workspace.getConfiguration('agentTape').get<unknown>('blame.style');
  if (raw === undefined) return DEFAULT_STYLE;
  const parsed = blameStyle.safeParse(raw);
  if (parsed.success) return parsed.data;
  log.warn(`setting agentTape.blame.style ignored (${JSON.stringify(raw)} is neither "gutter" nor "endOfLine"); using "${DEFAULT_STYLE}"`);
  return DEFAULT_STYLE;
}

/** A thin bar the height of a line, in the agent's colour. */
const barIcon = (colour: string): vscode.Uri =>
  vscode.Uri.parse(
    `data:image/svg+xml;utf8,${encodeURIComponent(`<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><rect x="5" width="3" height="16" fill="${colour}"/></svg>`)}`,
  );

/**
 * The marks of agent-written lines in editors, in one style: a bar in the gutter (and the overview
 * ruler) in each agent's colour, or a faint note after the first line of each range, in the colour
 * GitLens gives its own (`editorCodeLens.foreground`). The decoration types live as long as this.
 */
export class BlameDecorations implements vscode.Disposable {
  private readonly gutters = new Map<string, vscode.TextEditorDecorationType>();
  private readonly notes = vscode.window.createTextEditorDecorationType({
    after: { color: new vscode.ThemeColor('editorCodeLens.foreground'), fontStyle: 'italic', margin: '0 0 0 3em' },
    rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
  });

  constructor(readonly style: BlameStyle) {}

  show(editor: vscode.TextEditor, ranges: readonly BlameRange[]): void {
    if (this.style === 'endOfLine') {
      const lines = editor.document.lineCount;
      const notes = endOfLineNotes(ranges, Date.now()).filter((n) => n.line < lines);
      editor.setDecorations(
        this.notes,
        notes.map((n) => {
          const end = editor.document.lineAt(n.line).range.end;
          return { range: new vscode.Range(end, end), renderOptions: { after: { contentText: n.text } } };
        }),
      );
      return;
    }
    const spans = gutterSpans(ranges);
    for (const [agent, type] of this.gutters) if (!spans.has(agent)) editor.setDecorations(type, []);
    for (const [agent, lines] of spans)
      editor.setDecorations(
        this.gutterOf(agent),
        lines.map((s) => new vscode.Range(s.start, 0, s.end, 0)),
      );
  }

  clear(editor: vscode.TextEditor): void {
    editor.setDecorations(this.notes, []);
    for (const type of this.gutters.values()) editor.setDecorations(type, []);
  }

  private gutterOf(agent: string): vscode.TextEditorDecorationType {
    let type = this.gutters.get(agent);
    if (type === undefined) {
      const colour = agentColour(agent);
      type = vscode.window.createTextEditorDecorationType({
        gutterIconPath: barIcon(colour),
        gutterIconSize: 'contain',
        isWholeLine: true,
        overviewRulerColor: colour,
        overviewRulerLane: vscode.OverviewRulerLane.Left,
      });
      this.gutters.set(agent, type);
    }
    return type;
  }

  dispose(): void {
    this.notes.dispose();
    for (const type of this.gutters.values()) type.dispose();
    this.gutters.clear();
  }
}
