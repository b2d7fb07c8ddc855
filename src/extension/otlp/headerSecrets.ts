import * as vscode from 'vscode';
import * as z from 'zod';
import type { Deps } from '../deps';
import { reportingCommands } from '../sessionCommands';
import { headerNameProblem, headerSecretKey } from './otlpSettings';

const SET_HEADER = 'agentTape.otlp.setHeader';
const CLEAR_HEADERS = 'agentTape.otlp.clearHeaders';

/** A collector's key is a few hundred characters; a megabyte in SecretStorage is a paste gone wrong. */
const MAX_VALUE_CHARS = 8192;

function valueProblem(value: string): string | undefined {
  if (value.trim() === '') return 'The value is empty.';
  if (/[\r\n\0]/.test(value)) return 'The value holds a line break: it cannot be sent as a header.';
  if (value.length > MAX_VALUE_CHARS) return `The value is longer than ${MAX_VALUE_CHARS} characters.`;
  return undefined;
}

// `executeCommand(SET_HEADER, { name, value })` sets it without asking, for automation and tests.
const givenHeader = z.strictObject({ name: z.string(), value: z.string() });

const config = () => vscode.workspace.getConfiguration('agentTape.otlp');

/** The header names listed in the settings (what is not a list of strings is none here: reading the settings reports it). */
function listedNames(): string[] {
  const raw = config().get<unknown>('headers');
  return Array.isArray(raw) ? raw.filter((n): n is string => typeof n === 'string') : [];
}

/** The values of the named headers from SecretStorage, or the first name that has none. */
export async function headerValues(
  secrets: vscode.SecretStorage,
  names: readonly string[],
): Promise<{ headers: Record<string, string> } | { missing: string }> {
  const headers: Record<string, string> = {};
  for (const name of names) {
    const value = await secrets.get(headerSecretKey(name));
    if (value === undefined) return { missing: name };
    headers[name] = value;
  }
  return { headers };
}

/**
 * **Tape: Set OpenTelemetry Header…** and **Tape: Clear OpenTelemetry Headers**: a header's value
 * goes to SecretStorage under its name, and only the name to `agentTape.otlp.headers` (user
 * settings: the setting is machine-scoped, so no workspace can name headers to send). Values are
 * never shown, logged or put on the tape.
 */
export function registerHeaderSecrets(deps: Pick<Deps, 'context' | 'log'>): vscode.Disposable {
  const { context, log } = deps;
  const run = reportingCommands(log);
  return vscode.Disposable.from(
    run(SET_HEADER, async (given?: unknown) => {
      const arg = givenHeader.safeParse(given);
      const name = (
        arg.success
          ? arg.data.name
          : await vscode.window.showInputBox({
              title: 'Agent Tape: OpenTelemetry header (1/2)',
              prompt: "The header's name, as your collector or backend asks for it (Authorization, x-honeycomb-team, …)",
              ignoreFocusOut: true,
              validateInput: (n) => headerNameProblem(n.trim()),
            })
      )?.trim();
      if (name === undefined) return undefined;
      const nameProblem = headerNameProblem(name);
      if (nameProblem !== undefined) throw new Error(nameProblem);
      const value = arg.success
        ? arg.data.value
        : await vscode.window.showInputBox({
            title: `Agent Tape: OpenTelemetry header ${name} (2/2)`,
            prompt: "The header's value: kept in VS Code's secret storage, sent only to agentTape.otlp.endpoint",
            password: true,
            ignoreFocusOut: true,
            validateInput: valueProblem,
          });
      if (value === undefined) return undefined;
      const problem = valueProblem(value);
      if (problem !== undefined) throw new Error(`header ${name}: ${problem}`);
      // The secret first: the settings change makes live export read it.
      await context.secrets.store(headerSecretKey(name), value.trim());
      const names = listedNames();
      if (!names.some((n) => n.toLowerCase() === name.toLowerCase())) await config().update('headers', [...names, name], vscode.ConfigurationTarget.Global);
      log.info(`OpenTelemetry header ${name} set`);
      if (!arg.success) void vscode.window.showInformationMessage(`Agent Tape: the OpenTelemetry header ${name} was saved.`);
      return name;
    }),
    run(CLEAR_HEADERS, async () => {
      const names = listedNames();
      // The names first: a name whose value is gone would turn live export off until it is.
      await config().update('headers', undefined, vscode.ConfigurationTarget.Global);
      for (const name of names) await context.secrets.delete(headerSecretKey(name));
      log.info(`OpenTelemetry headers cleared (${names.length})`);
      return names.length;
    }),
  );
}
