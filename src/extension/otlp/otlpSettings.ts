import * as z from 'zod';
import { HEADER_NAME, tracesUrlOf, type OtlpProtocol } from '../../otel/otlpEndpoint';
import { errorMessage } from '../../tape/errorMessage';

/**
 * The `agentTape.otlp.*` settings of live export, read from their raw values. Kept free of
 * `vscode` for unit tests. Header values are secrets and never settings: the settings name the
 * headers, SecretStorage holds their values (`headerSecretKey`).
 */

export interface OtlpSettings {
  /** The full traces URL (`/v1/traces` appended to the base the user gave). */
  url: string;
  protocol: OtlpProtocol;
  content: boolean;
  /** The headers' names, each once (HTTP names are case-insensitive). */
  headerNames: string[];
}

export type OtlpSettingsResult = { state: 'off' } | { state: 'invalid'; problem: string } | { state: 'on'; settings: OtlpSettings };

/** The raw values, as `WorkspaceConfiguration.get` gives them (settings.json can hold anything). */
export interface RawOtlpSettings {
  endpoint: unknown;
  protocol: unknown;
  content: unknown;
  headers: unknown;
}

/** Where a header's value is kept in the extension's SecretStorage. */
export const HEADER_SECRET_PREFIX = 'agentTape.otlp.header.';
export const headerSecretKey = (name: string): string => `${HEADER_SECRET_PREFIX}${name.toLowerCase()}`;

// The exporter writes these itself, or HTTP's framing owns them: a user's value would break the request.
const RESERVED = new Set(['content-type', 'content-length', 'content-encoding', 'transfer-encoding', 'host', 'connection']);

/** Why `name` cannot be a header of the export requests, or undefined when it can. */
export function headerNameProblem(name: string): string | undefined {
  if (!HEADER_NAME.test(name)) return `${JSON.stringify(name)} is not an HTTP header name (letters, digits and !#$%&'*+.^_\`|~- only)`;
  if (RESERVED.has(name.toLowerCase())) return `${name} is set by the exporter itself`;
  return undefined;
}

const headerName = z.string().superRefine((name, ctx) => {
  const problem = headerNameProblem(name);
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
});

const schema = z.object({
  endpoint: z.string(),
  protocol: z.enum(['http/protobuf', 'http/json']).default('http/protobuf'),
  content: z.boolean().default(false),
  headers: z
    .array(headerName)
    .default([])
    .refine((names) => new Set(names.map((n) => n.toLowerCase())).size === names.length, 'a header is named twice'),
});

/** Off when no endpoint is set; invalid (one readable problem, naming the setting) when a value does not fit. */
export function parseOtlpSettings(raw: RawOtlpSettings): OtlpSettingsResult {
  if (raw.endpoint === undefined || raw.endpoint === null || (typeof raw.endpoint === 'string' && raw.endpoint.trim() === '')) return { state: 'off' };
  const parsed = schema.safeParse(Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined && v !== null)));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { state: 'invalid', problem: `agentTape.otlp.${issue.path.join('.')}: ${issue.message}` };
  }
  const { endpoint, protocol, content, headers } = parsed.data;
  let url: string;
  try {
    url = tracesUrlOf(endpoint);
  } catch (e) {
    return { state: 'invalid', problem: `agentTape.otlp.endpoint: ${errorMessage(e)}` };
  }
  // Settings are shown, logged and synced: a login belongs in a header, whose value SecretStorage keeps.
  const parsedUrl = new URL(url);
  if (parsedUrl.username !== '' || parsedUrl.password !== '')
    return { state: 'invalid', problem: 'agentTape.otlp.endpoint: holds a login; set it as a header with "Tape: Set OpenTelemetry Header…" instead' };
  return { state: 'on', settings: { url, protocol, content, headerNames: headers } };
}
