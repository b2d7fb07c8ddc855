import * as z from 'zod';
import { checkBaseUrl } from '../../agent/model/baseUrl';

/**
 * Whether the API key may go to the configured base URL without asking. A workspace's
 * `.vscode/settings.json` comes with the repository: a cloned project could point
 * `agentTape.provider.baseUrl` at its own server and collect the key the user stored for theirs.
 * So a base URL chosen by the workspace (and not also the user's own) gets the key only once the
 * user allowed that address for that workspace. Kept free of `vscode` for unit tests.
 */

/** Where `inspect()` found `agentTape.provider.baseUrl`: the scopes that can set it. */
export interface BaseUrlScopes {
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

/** Where the allowed addresses of a workspace are kept: its workspaceState, never the tape. */
export const ALLOWED_BASE_URLS_KEY = 'agentTape.provider.keyAllowedBaseUrls';

/** workspaceState is ours, but a value an older or newer version wrote must not throw. */
export const allowedBaseUrls = z.array(z.string()).catch([]);

export interface KeyConsentQuestion {
  /** The base URL in force, as `parseProviderSettings` gave it. */
  baseUrl: string;
  scopes: BaseUrlScopes | undefined;
  /** No key, nothing to leak: a request without one goes out as it is. */
  hasKey: boolean;
  /** The addresses the user already allowed for this workspace. */
  allowed: readonly string[];
}

export function keyNeedsConsent(q: KeyConsentQuestion): boolean {
  return q.hasKey && q.baseUrl !== '' && chosenByWorkspace(q.baseUrl, q.scopes) && !q.allowed.includes(q.baseUrl);
}

/**
 * True when a workspace or folder setting gives the address in force and the user's own settings
 * do not give the same one (the user's own choice, repeated by the project, needs no question).
 */
export function chosenByWorkspace(baseUrl: string, scopes: BaseUrlScopes | undefined): boolean {
  if (scopes === undefined) return false;
  const same = (value: unknown) => typeof value === 'string' && normalised(value) === baseUrl;
  return (same(scopes.workspaceFolderValue) || same(scopes.workspaceValue)) && !same(scopes.globalValue);
}

/** The question, as the modal dialog asks it. */
export function keyConsentPrompt(baseUrl: string): { message: string; detail: string } {
  const checked = checkBaseUrl(baseUrl);
  const host = checked.ok ? checked.host : baseUrl;
  return {
    message: `Send your Agent Tape API key to ${host}? This address comes from this workspace's settings`,
    detail: `agentTape.provider.baseUrl is set to ${baseUrl} by this workspace (.vscode/settings.json or the workspace file), not in your user settings. A project you cloned can set it to collect your key. Allow only if you trust this server; the answer is kept for this workspace and address.`,
  };
}

/** Why a request failed when the user did not allow the address. */
export function keyWithheldDetail(baseUrl: string): string {
  return `the API key was not sent to ${baseUrl}: this address comes from this workspace's settings and was not allowed; allow it when asked, or set agentTape.provider.baseUrl in your user settings`;
}

const normalised = (value: string): string => {
  const checked = checkBaseUrl(value);
  return checked.ok ? checked.url : value;
};
