/** A command line the user got wrong: exit code 2 with the message and a pointer to --help. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export interface Parsed {
  positional: string[];
  flags: Map<string, string | true>;
  /** Every value of each `repeated` flag, in order (`flags` holds the last). */
  lists: Map<string, string[]>;
}

/**
 * Parses `args` against the flags a command accepts: `valued` take a value (`--k v` or `--k=v`),
 * `switches` do not; `--` ends the options. Unknown flags and a wrong number of positionals are
 * usage errors; with `rest`, the last positional takes one or more words (a prompt). A `repeated`
 * flag takes a value each time it is given (`--drop 4 --drop 9`).
 */
export function parseArgs(
  args: readonly string[],
  spec: { valued?: string[]; repeated?: string[]; switches?: string[]; positional: string[]; rest?: boolean },
): Parsed {
  const positional: string[] = [];
  const flags = new Map<string, string | true>();
  const lists = new Map<string, string[]>();
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') {
      // Everything after `--` is positional: a search for "--x" is `search t.tape.sqlite -- --x`.
      positional.push(...args.slice(i + 1));
      break;
    }
    if (!a.startsWith('--')) {
      positional.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const name = a.slice(2, eq < 0 ? undefined : eq);
    if (spec.valued?.includes(name) || spec.repeated?.includes(name)) {
      const v = eq < 0 ? args[++i] : a.slice(eq + 1);
      if (v === undefined) throw new UsageError(`--${name} needs a value`);
      flags.set(name, v);
      if (spec.repeated?.includes(name)) lists.set(name, [...(lists.get(name) ?? []), v]);
    } else if (spec.switches?.includes(name) && eq < 0) {
      flags.set(name, true);
    } else {
      throw new UsageError(`unknown option ${a}`);
    }
  }
  const counted = spec.rest ? positional.length >= spec.positional.length : positional.length === spec.positional.length;
  if (!counted) {
    throw new UsageError(
      `expected ${spec.positional.map((p) => `<${p}>`).join(' ') || 'no arguments'}, got ${positional.length ? positional.join(' ') : 'none'}`,
    );
  }
  return { positional, flags, lists };
}

export const str = (p: Parsed, name: string): string | undefined => {
  const v = p.flags.get(name);
  return typeof v === 'string' ? v : undefined;
};

export function int(p: Parsed, name: string): number | undefined {
  const v = str(p, name);
  if (v === undefined) return undefined;
  // Beyond 2^53 a number is no longer the integer written (99999999999999999999 reads as 1e20).
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v))) {
    throw new UsageError(`--${name} must be a non-negative integer up to ${Number.MAX_SAFE_INTEGER}, got ${JSON.stringify(v)}`);
  }
  return Number(v);
}

/** A flag that must be given a value; an empty one (`--session=`) names nothing, so it is refused too. */
export function required(p: Parsed, name: string): string {
  const v = str(p, name);
  if (v === undefined) throw new UsageError(`--${name} is required`);
  if (v === '') throw new UsageError(`--${name} must not be empty`);
  return v;
}
