import type { FileEdit } from './fileChange';
import { editsOfPatch } from './patchText';

/**
 * Codex's apply_patch run as a command, as codex-rs recognises it (`maybe_parse_apply_patch`)
 * and applies itself instead of running it: the argv `["apply_patch", patch]` (or `applypatch`), or
 * a shell script (`["bash", "-lc", script]`, or the `cmd` of `exec_command`) that is only
 * `apply_patch <<'EOF' … EOF`, perhaps after `cd <dir> &&`. Relative paths are then under that
 * folder, itself under the call's `workdir` when it names one.
 */

const PATCH_COMMANDS = new Set(['apply_patch', 'applypatch']);
const SHELL = /^(?:.*\/)?(?:bash|sh|zsh)$/;
const HEREDOC_SCRIPT =
  /^\s*(?:cd\s+(?:'([^']+)'|"([^"]+)"|([^\s'"&;|]+))\s*&&\s*)?(?:apply_patch|applypatch)\s+<<-?\s*(['"]?)([A-Za-z_]\w*)\4[ \t]*\n([\s\S]*?)\n\5\s*$/;

/** The edits of a command that is an apply_patch, run in `workdir` if given; [] for any other command. */
export function editsOfPatchCommand(command: string | readonly string[], workdir?: string): FileEdit[] {
  if (typeof command === 'string') return editsOfScript(command, workdir);
  if (command.length === 2 && PATCH_COMMANDS.has(command[0])) return inFolder(editsOfPatch(command[1]), workdir);
  if (command.length === 3 && SHELL.test(command[0]) && (command[1] === '-lc' || command[1] === '-c')) return editsOfScript(command[2], workdir);
  return [];
}

function editsOfScript(script: string, workdir: string | undefined): FileEdit[] {
  const m = HEREDOC_SCRIPT.exec(script);
  if (m === null) return [];
  const cd = m[1] ?? m[2] ?? m[3];
  return inFolder(editsOfPatch(m[6]), cd === undefined ? workdir : workdir === undefined ? cd : under(workdir, cd));
}

function inFolder(edits: FileEdit[], dir: string | undefined): FileEdit[] {
  if (dir === undefined || dir === '') return edits;
  return edits.map((e) => ({ ...e, path: under(dir, e.path), ...(e.movedTo !== undefined ? { movedTo: under(dir, e.movedTo) } : {}) }));
}

/** `path` as written from inside `dir`: an absolute path stays. */
const under = (dir: string, path: string): string => (path.startsWith('/') ? path : `${dir.replace(/\/+$/, '')}/${path}`);
