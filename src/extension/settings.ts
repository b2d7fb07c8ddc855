import * as vscode from 'vscode';
import * as z from 'zod';
import { DEFAULT_MAX_ROUNDS } from '../agent/agentSession';
import { DEFAULT_SUBAGENT_MAX_ROUNDS } from '../agent/subagent/subagentRunner';
import { CACHE_WRITE_NAMES, type CacheWriteName } from '../otel/genAiSpans';

/** The `@tape` settings (the own provider's are read by its own module). */
export interface AgentSettings {
  maxRounds: number;
  subagentMaxRounds: number;
  autoCompactShare: number;
  extraTools: string[];
  /** Secret-looking environment variables that commands the agent runs may still see. */
  commandEnvAllowlist: string[];
  /** Workspace checkpoints of `@tape`'s turns (restore, undo, review). */
  checkpoints: boolean;
}

const DEFAULTS: AgentSettings = {
  maxRounds: DEFAULT_MAX_ROUNDS,
  subagentMaxRounds: DEFAULT_SUBAGENT_MAX_ROUNDS,
  autoCompactShare: 0.8,
  extraTools: [],
  commandEnvAllowlist: [],
  checkpoints: true,
};

const schema = {
  maxRounds: z.number().int().min(1).max(200),
  subagentMaxRounds: z.number().int().min(1).max(200),
  autoCompactShare: z.number().min(0.3).max(0.98),
  extraTools: z.array(z.string().min(1)),
  commandEnvAllowlist: z.array(z.string().regex(/^[^=\0]+$/, 'an environment variable name')),
  checkpoints: z.boolean(),
} satisfies { [K in keyof AgentSettings]: z.ZodType<AgentSettings[K]> };

/**
 * Reads the settings, each checked on its own: a hand-edited settings.json with a bad value gets
 * that setting's default and a warning in the log, never a failed request.
 */
export function readAgentSettings(log: vscode.LogOutputChannel): AgentSettings {
  const config = vscode.workspace.getConfiguration('agentTape');
  const pick = <K extends keyof AgentSettings>(key: K): AgentSettings[K] => {
    // A cloned repository's .vscode/settings.json must not hand the user's secrets to commands.
    const raw = key === 'commandEnvAllowlist' ? config.inspect<unknown>(key)?.globalValue : config.get<unknown>(key);
    if (raw === undefined) return DEFAULTS[key];
    const parsed = schema[key].safeParse(raw);
    if (parsed.success) return parsed.data as AgentSettings[K];
    log.warn(`setting agentTape.${key} ignored (${z.prettifyError(parsed.error)}); using ${JSON.stringify(DEFAULTS[key])}`);
    return DEFAULTS[key];
  };
  return {
    maxRounds: pick('maxRounds'),
    subagentMaxRounds: pick('subagentMaxRounds'),
    autoCompactShare: pick('autoCompactShare'),
    extraTools: pick('extraTools'),
    commandEnvAllowlist: pick('commandEnvAllowlist'),
    checkpoints: pick('checkpoints'),
  };
}

const cacheTokens = z.enum(CACHE_WRITE_NAMES);

/** `agentTape.otlp.cacheTokens`, the spelling of the cache-write token count in exported spans; a bad value is logged and the conventions' current one used. */
export function readOtlpCacheTokens(log: vscode.LogOutputChannel): CacheWriteName {
  const raw = vscode.workspace.getConfiguration('agentTape.otlp').get<unknown>('cacheTokens');
  if (raw === undefined) return 'cache_write';
  const parsed = cacheTokens.safeParse(raw);
  if (parsed.success) return parsed.data;
  log.warn(`setting agentTape.otlp.cacheTokens ignored (${z.prettifyError(parsed.error)}); using "cache_write"`);
  return 'cache_write';
}
