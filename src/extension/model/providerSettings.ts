import * as z from 'zod';
import { checkBaseUrl } from '../../agent/model/baseUrl';

/** The vendor our `languageModelChatProviders` contribution declares in package.json. */
export const OWN_VENDOR = 'agent-tape';

/** Where the server's API key is kept in the extension's SecretStorage, never in settings or on the tape. */
export const API_KEY_SECRET = 'agentTape.provider.apiKey';

/** One model of the server, as `agentTape.provider.models` describes it, defaults applied. */
export interface ConfiguredModel {
  id: string;
  name: string;
  contextWindow: number;
  maxOutput: number;
  toolCalling: boolean;
}

export interface ProviderSettings {
  /** Empty when no server is configured: then the provider offers no models. */
  baseUrl: string;
  models: ConfiguredModel[];
  /** One readable line per setting that was ignored, for the log. */
  problems: string[];
}

const DEFAULT_CONTEXT_WINDOW = 32_768;
const DEFAULT_MAX_OUTPUT = 4096;

// The manifest's JSON Schema only warns in the Settings editor; settings.json can hold anything.
const modelSchema = z.strictObject({
  id: z.string().trim().min(1),
  name: z.string().trim().min(1).optional(),
  contextWindow: z.number().int().min(1024).default(DEFAULT_CONTEXT_WINDOW),
  maxOutput: z.number().int().min(1).optional(),
  toolCalling: z.boolean().default(true),
});

/**
 * Reads the provider's settings from their raw values. A model entry that does not fit is left
 * out with a problem line, so one typo does not take the other models away.
 */
export function parseProviderSettings(rawBaseUrl: unknown, rawModels: unknown): ProviderSettings {
  const problems: string[] = [];
  if (typeof rawBaseUrl !== 'string' || rawBaseUrl.trim() === '') return { baseUrl: '', models: [], problems };
  const checked = checkBaseUrl(rawBaseUrl);
  if (!checked.ok) {
    problems.push(`agentTape.provider.baseUrl: ${checked.reason}; no models are offered`);
    return { baseUrl: '', models: [], problems };
  }
  const baseUrl = checked.url;
  if (!Array.isArray(rawModels)) {
    problems.push('agentTape.provider.models: expected an array of { id, name?, contextWindow?, maxOutput?, toolCalling? }');
    return { baseUrl, models: [], problems };
  }
  const models: ConfiguredModel[] = [];
  rawModels.forEach((raw: unknown, i) => {
    const parsed = modelSchema.safeParse(raw);
    if (!parsed.success) {
      problems.push(`agentTape.provider.models[${i}] is skipped: ${z.prettifyError(parsed.error)}`);
      return;
    }
    const m = parsed.data;
    // The picker identifies a model by its id: a second entry with the same id would be unreachable.
    if (models.some((other) => other.id === m.id)) {
      problems.push(`agentTape.provider.models[${i}] is skipped: the id "${m.id}" is listed earlier`);
      return;
    }
    const maxOutput = m.maxOutput ?? Math.min(DEFAULT_MAX_OUTPUT, Math.floor(m.contextWindow / 4));
    if (maxOutput >= m.contextWindow) {
      problems.push(`agentTape.provider.models[${i}] is skipped: maxOutput ${maxOutput} leaves no room for input in a window of ${m.contextWindow}`);
      return;
    }
    models.push({ id: m.id, name: m.name ?? m.id, contextWindow: m.contextWindow, maxOutput, toolCalling: m.toolCalling });
  });
  return { baseUrl, models, problems };
}

/**
 * The provider's settings once `model` of the server at `baseUrl` is picked: the models already
 * listed stay when the server is the one configured (the pick is added if missing), otherwise
 * the pick is the only model, since the others belong to the server being replaced.
 */
export function settingsWithPick(rawBaseUrl: unknown, rawModels: unknown, pick: { baseUrl: string; model: string }): { baseUrl: string; models: unknown[] } {
  const current = parseProviderSettings(rawBaseUrl, rawModels);
  const picked = checkBaseUrl(pick.baseUrl);
  const sameServer = picked.ok && current.baseUrl === picked.url && Array.isArray(rawModels);
  const models: unknown[] = sameServer ? [...(rawModels as unknown[])] : [];
  if (!(sameServer && current.models.some((m) => m.id === pick.model))) models.push({ id: pick.model });
  return { baseUrl: pick.baseUrl, models };
}
