/**
 * The `<environment_details>` block Cline, Roo Code and Kilo Code add to each user message: open
 * tabs, time, and on the first request the workspace's files under a heading naming the folder
 * ("# Current Working Directory (<path>) Files" in Cline, "Current Workspace Directory" in Roo
 * and Kilo; Cline with several roots names only the primary one, by name). Roo and Kilo also name
 * the model (`<model>id</model>` under "# Current Mode").
 */

export const isEnvironmentDetails = (text: string): boolean => text.trimStart().startsWith('<environment_details>');

const CWD_HEADING = /^# Current (?:Working|Workspace) Directory \((.+)\) Files$/m;
const MODEL = /<model>([^<\n]+)<\/model>/;

/** A path, not the name of a primary root among several. */
const asFolder = (named: string): string | null => (named.startsWith('Primary: ') ? null : named);

/** The folder the details name, or null. */
export function cwdOfEnvironment(text: string): string | null {
  const named = CWD_HEADING.exec(text)?.[1];
  return named === undefined ? null : asFolder(named);
}

/** The model the details name (Roo Code, Kilo Code), or null. */
export const modelOfEnvironment = (text: string): string | null => MODEL.exec(text)?.[1].trim() || null;

// The heading inside the JSON text of a file's first bytes: its newlines are written `\n` there.
const CWD_IN_JSON = /# Current (?:Working|Workspace) Directory \((.+?)\) Files\\n/;

/** The folder the first environment details in a history file's raw JSON text name (discovery reads only a file's head). */
export function cwdInJsonText(text: string): string | null {
  const raw = CWD_IN_JSON.exec(text)?.[1];
  if (raw === undefined) return null;
  try {
    const named = JSON.parse(`"${raw}"`) as unknown;
    return typeof named === 'string' ? asFolder(named) : null;
  } catch {
    return null;
  }
}
