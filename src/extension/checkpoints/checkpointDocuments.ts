import * as path from 'path';
import * as vscode from 'vscode';
import * as z from 'zod/mini';
import type { CheckpointStore } from '../../agent/checkpoints/checkpointStore';
import { GitError } from '../../agent/checkpoints/shadowGit';

/** A file as a checkpoint holds it: read-only, from the checkpoint store beside the workspace tape. */
export const CHECKPOINT_SCHEME = 'agent-tape-checkpoint';

/** Larger files are named, not shown: the diff editor holds both sides in memory. */
export const MAX_SHOWN_BYTES = 8 * 1024 * 1024;

/** Git's own test for a binary file: a NUL byte in the first 8000 bytes. */
const BINARY_PROBE = 8000;

const checkpointDocument = z.object({
  checkpointId: z.string().check(z.regex(/^([0-9a-f]{40}|[0-9a-f]{64})$/, 'a checkpoint id (40 or 64 lowercase hex digits)')),
  /** Workspace-relative and `/`-separated, as the checkpoint events list it. */
  path: z.string().check(
    z.minLength(1),
    z.refine((p) => !p.startsWith('/') && !p.split('/').some((part) => part === '' || part === '.' || part === '..'), 'a workspace-relative path'),
  ),
});
export type CheckpointDocument = z.infer<typeof checkpointDocument>;

/** The URI of a workspace file as the checkpoint holds it; its path ends in the file's name, so the editor picks its language. */
export function checkpointUri(checkpointId: string, workspacePath: string): vscode.Uri {
  const doc = checkpointDocument.parse({ checkpointId, path: workspacePath });
  return vscode.Uri.from({ scheme: CHECKPOINT_SCHEME, path: `/${doc.path}`, query: new URLSearchParams({ checkpoint: doc.checkpointId }).toString() });
}

/** What a checkpoint URI names; throws on any other URI (one restored from an old window, or made by hand). */
export function parseCheckpointUri(uri: vscode.Uri): CheckpointDocument {
  const parsed = checkpointDocument.safeParse({
    checkpointId: uri.scheme === CHECKPOINT_SCHEME ? (new URLSearchParams(uri.query).get('checkpoint') ?? undefined) : undefined,
    path: uri.path.slice(1),
  });
  if (!parsed.success) throw new Error(`${uri.toString()} is not a checkpoint document: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/**
 * The content of checkpoint documents: the file's bytes at that checkpoint as text. A file the
 * checkpoint does not hold (created later, or removed before) is an empty document, so a diff shows
 * it added or removed; a binary or too large file is one line saying so.
 */
export class CheckpointDocuments implements vscode.TextDocumentContentProvider {
  constructor(private readonly store: () => Promise<CheckpointStore>) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const doc = parseCheckpointUri(uri);
    const store = await this.store();
    let bytes: Buffer | null;
    try {
      bytes = await store.fileAt(doc.checkpointId, doc.path, MAX_SHOWN_BYTES);
    } catch (e) {
      // Too large for the cap, or the store lacks the checkpoint: the reason, where the text would be.
      if (e instanceof GitError) return `(${path.posix.basename(doc.path)} cannot be shown: ${e.message})\n`;
      throw e;
    }
    if (bytes === null) return '';
    if (bytes.subarray(0, BINARY_PROBE).includes(0)) return `(binary file, ${bytes.length} bytes: not shown)\n`;
    return bytes.toString('utf8');
  }
}
