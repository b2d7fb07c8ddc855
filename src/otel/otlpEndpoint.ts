/**
 * Where live spans go: a collector's OTLP/HTTP traces URL, its protocol, its headers (an API key,
 * a Basic login: secrets, so never logged) and a per-request deadline. The CLI takes it from the
 * standard `OTEL_EXPORTER_OTLP_*` variables, as every OpenTelemetry SDK does; the editor from its
 * settings and SecretStorage.
 */

export type OtlpProtocol = 'http/json' | 'http/protobuf';

export interface OtlpEndpoint {
  /** The full traces URL, e.g. http://127.0.0.1:4318/v1/traces. */
  url: string;
  protocol: OtlpProtocol;
  /** Values are secrets: never logged, never on the tape. */
  headers: Readonly<Record<string, string>>;
  timeoutMs: number;
}

/** The SDKs' default per-request deadline (OTEL_EXPORTER_OTLP_TIMEOUT). */
export const DEFAULT_TIMEOUT_MS = 10_000;

/** An HTTP header name (RFC 9110 token). */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function httpUrl(text: string, what: string): URL {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new Error(`${what} is not a URL: ${JSON.stringify(text)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`${what} must be an http:// or https:// URL (OTLP/HTTP), not ${url.protocol}`);
  return url;
}

/** A base endpoint as OTEL_EXPORTER_OTLP_ENDPOINT means it: the traces path `v1/traces` appended to its path. */
export function tracesUrlOf(base: string): string {
  const url = httpUrl(base, 'the OTLP endpoint');
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/v1/traces`;
  return url.toString();
}

/** What may be shown of an endpoint: scheme, host and path, without a login or query that may carry a key. */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '(not a URL)';
  }
}

/** `name=value,name=value` with URL-encoded values, as OTEL_EXPORTER_OTLP_HEADERS holds them (W3C baggage's format). */
export function parseOtlpHeaders(text: string, what: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const item of text.split(',')) {
    if (item.trim() === '') continue;
    const eq = item.indexOf('=');
    const name = (eq < 0 ? item : item.slice(0, eq)).trim();
    // The value is never quoted in an error: it is a secret.
    if (eq < 0 || !HEADER_NAME.test(name)) throw new Error(`${what}: each item must be name=value with an HTTP header name (item ${JSON.stringify(name)})`);
    let value: string;
    try {
      value = decodeURIComponent(item.slice(eq + 1).trim());
    } catch {
      throw new Error(`${what}: the value of ${name} is not URL-encoded text`);
    }
    if (/[\r\n\0]/.test(value)) throw new Error(`${what}: the value of ${name} holds a line break`);
    headers[name] = value;
  }
  return headers;
}

function protocolOf(text: string | undefined, what: string): OtlpProtocol {
  const p = (text ?? 'http/protobuf').trim();
  if (p === 'http/protobuf' || p === 'http/json') return p;
  if (p === 'grpc') throw new Error(`${what}=grpc is not supported: use http/protobuf (a collector's OTLP/HTTP port, 4318)`);
  throw new Error(`${what} must be http/protobuf or http/json, not ${JSON.stringify(p)}`);
}

function timeoutOf(text: string | undefined, what: string): number {
  if (text === undefined || text.trim() === '') return DEFAULT_TIMEOUT_MS;
  const ms = Number(text);
  if (!Number.isInteger(ms) || ms <= 0 || ms > 600_000) throw new Error(`${what} must be milliseconds between 1 and 600000, not ${JSON.stringify(text)}`);
  return ms;
}

const set = (v: string | undefined): string | undefined => (v === undefined || v.trim() === '' ? undefined : v);

/**
 * The `OTEL_EXPORTER_OTLP_*` variables (endpoint, headers, protocol, timeout; the `TRACES_` ones
 * win), and OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT for content, as the GenAI
 * instrumentations read it. Null when no endpoint is set, or when OTEL_SDK_DISABLED=true or
 * OTEL_TRACES_EXPORTER names no `otlp`. A bad value throws an error naming the variable.
 */
export function otlpEndpointFromEnv(env: NodeJS.ProcessEnv): { endpoint: OtlpEndpoint; content: boolean } | null {
  if (set(env.OTEL_SDK_DISABLED)?.trim().toLowerCase() === 'true') return null;
  const exporters = set(env.OTEL_TRACES_EXPORTER);
  if (exporters !== undefined && !exporters.split(',').some((x) => x.trim() === 'otlp')) return null;
  const traces = set(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  const base = set(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  if (traces === undefined && base === undefined) return null;
  const url = traces !== undefined ? httpUrl(traces, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT').toString() : tracesUrlOf(base as string);
  const headerVar = set(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS) !== undefined ? 'OTEL_EXPORTER_OTLP_TRACES_HEADERS' : 'OTEL_EXPORTER_OTLP_HEADERS';
  const protocolVar = set(env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL) !== undefined ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const timeoutVar = set(env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT) !== undefined ? 'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT' : 'OTEL_EXPORTER_OTLP_TIMEOUT';
  return {
    endpoint: {
      url,
      protocol: protocolOf(set(env[protocolVar]), protocolVar),
      headers: parseOtlpHeaders(env[headerVar] ?? '', headerVar),
      timeoutMs: timeoutOf(env[timeoutVar], timeoutVar),
    },
    content: set(env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT)?.trim().toLowerCase() === 'true',
  };
}
