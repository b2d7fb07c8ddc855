import * as path from 'path';
import * as vscode from 'vscode';
import { MAX_FILE_READ_BYTES } from '../../agent/tools/tool';
import { looksBinary } from '../../agent/workspace/binary';
import { readRegularPrefix } from '../../store/safeRead';
import { errorMessage } from '../../tape/errorMessage';
import { codeBlock } from '../tools/markdownCode';

/** An attached file goes into the message up to this many characters; the model can read the rest. */
const MAX_ATTACHED_CHARS = 32 * 1024;

/**
 * The user message a request makes: the prompt, then what the user attached (`#file`, a
 * selection, a dragged file), each as a fenced block under its workspace path. Attachments are
 * part of what the user said, so they go on the tape with the prompt and into every later context
 * the way the user sent them. Unreadable or binary attachments are named, not inlined.
 */
export async function userMessageOf(request: vscode.ChatRequest, root: vscode.Uri): Promise<string> {
  const parts = [request.prompt];
  for (const ref of request.references) {
    const attached = await attachmentOf(ref.value, root);
    if (attached !== undefined) parts.push(attached);
  }
  return parts.join('\n\n');
}

async function attachmentOf(value: unknown, root: vscode.Uri): Promise<string | undefined> {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value;
  const uri = value instanceof vscode.Location ? value.uri : value instanceof vscode.Uri ? value : undefined;
  if (uri === undefined) return undefined;
  const range = value instanceof vscode.Location ? value.range : undefined;
  const name = workspacePath(uri, root) + (range ? `, lines ${range.start.line + 1}-${range.end.line + 1}` : '');
  let text: string;
  try {
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    if (open) text = open.getText(range);
    else {
      // A file on disk may be a symlink to a device or a FIFO, or huge: read as read_file does.
      const bytes = uri.scheme === 'file' ? (await readRegularPrefix(uri.fsPath, MAX_FILE_READ_BYTES)).bytes : await vscode.workspace.fs.readFile(uri);
      if (looksBinary(bytes)) return `Attached: ${name} (binary, not shown)`;
      text = new TextDecoder().decode(bytes);
      if (range)
        text = text
          .split('\n')
          .slice(range.start.line, range.end.line + 1)
          .join('\n');
    }
  } catch (e) {
    return `Attached: ${name} (could not be read: ${errorMessage(e)})`;
  }
  const cut = text.length > MAX_ATTACHED_CHARS;
  return `Attached: ${name}${cut ? ` (first ${MAX_ATTACHED_CHARS} characters of ${text.length}; read_file reads the rest)` : ''}\n${codeBlock(cut ? text.slice(0, MAX_ATTACHED_CHARS) : text)}`;
}

/** A path the model's tools accept: relative to the workspace folder when inside it. */
function workspacePath(uri: vscode.Uri, root: vscode.Uri): string {
  if (uri.scheme !== 'file') return uri.toString();
  const rel = path.relative(root.fsPath, uri.fsPath);
  return rel.startsWith('..') || path.isAbsolute(rel) ? uri.fsPath : rel.split(path.sep).join('/');
}
