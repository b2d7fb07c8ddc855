/**
 * Which of our own environment variables a command the model runs may see. The model may be
 * following instructions planted in a file it read, and whatever a command prints goes onto the
 * tape, into its search index and back to the model's server: `echo $OPENAI_API_KEY` must print
 * nothing. So variables whose names say they hold a secret are withheld unless the user lists them.
 */
export interface CommandEnvPolicy {
  /** Withheld whatever their names: the variable the agent's own API key comes from. */
  readonly withhold?: readonly string[];
  /** Passed although their names look secret: the user listed them (they win over `withhold`). */
  readonly pass?: readonly string[];
}

/**
 * A name is taken for a secret when one of its `_`-separated words (any case) is TOKEN, SECRET,
 * PASSWORD or PASSWD, or it has API_KEY, APIKEY, PRIVATE_KEY or AUTH_TOKEN as words, or it ends in
 * PASSWORD: GITHUB_TOKEN, OPENAI_API_KEY, AWS_SECRET_ACCESS_KEY, NPM_CONFIG__AUTHTOKEN, PGPASSWORD.
 * And OpenTelemetry's exporter headers (OTEL_EXPORTER_OTLP_HEADERS and its per-signal kin): they
 * carry a collector's API key or login.
 */
const SECRET_NAME = /(?:^|_)(?:TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|PRIVATE_?KEY|AUTH_?TOKEN)(?:_|$)|PASSWORD$|^OTEL_EXPORTER_OTLP_(?:[A-Z]+_)?HEADERS$/;

function looksSecret(name: string): boolean {
  return SECRET_NAME.test(name.toUpperCase());
}

/** `parent` without the variables the policy withholds; names compare case-insensitively, as on Windows. */
export function commandEnv(parent: NodeJS.ProcessEnv, policy: CommandEnvPolicy = {}): NodeJS.ProcessEnv {
  const upper = (names: readonly string[] | undefined) => new Set((names ?? []).map((n) => n.toUpperCase()));
  const pass = upper(policy.pass);
  const withhold = upper(policy.withhold);
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(parent)) {
    const key = name.toUpperCase();
    if (!pass.has(key) && (withhold.has(key) || looksSecret(name))) continue;
    env[name] = value;
  }
  return env;
}

/** The values of the variables of `env` that `commandEnv` withholds: what an export of the agent's work masks (src/otel/secretMask.ts). */
export function withheldValues(env: NodeJS.ProcessEnv, policy: CommandEnvPolicy = {}): string[] {
  const kept = commandEnv(env, policy);
  return Object.entries(env).flatMap(([name, value]) => (value !== undefined && !(name in kept) ? [value] : []));
}
