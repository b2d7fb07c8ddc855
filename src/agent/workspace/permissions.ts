/**
 * What the host lets the agent change. A fixed grant suits the CLI's flags; `ask` lets the chat put
 * the question to the user for each edit or command.
 */
export type PermissionKind = 'edit' | 'command';

export type Permissions = { readonly edits: boolean; readonly commands: boolean } | { ask(kind: PermissionKind, detail: string): Promise<boolean> };

export async function isPermitted(permissions: Permissions, kind: PermissionKind, detail: string): Promise<boolean> {
  if ('ask' in permissions) return (await permissions.ask(kind, detail)) === true;
  return kind === 'edit' ? permissions.edits : permissions.commands;
}
