import { createHash } from 'node:crypto';

/**
 * Canonical JSON: the one text a JSON value has, so that equal values hash equally wherever and
 * however they were built (SPEC 2.6). Object keys are sorted by UTF-16 code units at every depth,
 * arrays keep their order, there is no whitespace, and strings and numbers are written as
 * JSON.stringify writes them (the same rules as RFC 8785 for the values a tape holds; -0 is 0).
 */

export class CanonicalJsonError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CanonicalJsonError';
  }
}

/**
 * JSON.stringify would quietly drop `undefined`, write NaN as null and a Date as a string: two
 * different values would then share a hash. Anything JSON cannot hold exactly is refused instead,
 * with the path to it.
 */
function write(value: unknown, path: string, out: string[], open: Set<object>): void {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      out.push(JSON.stringify(value));
      return;
    case 'number':
      if (!Number.isFinite(value)) throw new CanonicalJsonError(`${path}: ${value} is not a JSON number`);
      out.push(JSON.stringify(value));
      return;
    case 'object': {
      if (value === null) {
        out.push('null');
        return;
      }
      if (open.has(value)) throw new CanonicalJsonError(`${path}: a cycle is not a JSON value`);
      open.add(value);
      if (Array.isArray(value)) {
        out.push('[');
        for (let i = 0; i < value.length; i++) {
          if (i > 0) out.push(',');
          // A hole reads as undefined, which is refused below like any other undefined.
          write(value[i], `${path}[${i}]`, out, open);
        }
        out.push(']');
      } else {
        const proto = Object.getPrototypeOf(value);
        if (proto !== Object.prototype && proto !== null) {
          throw new CanonicalJsonError(`${path}: a ${(value as object).constructor?.name ?? 'class instance'} is not a JSON value`);
        }
        const record = value as Record<string, unknown>;
        const keys = Object.keys(record).sort();
        out.push('{');
        for (let i = 0; i < keys.length; i++) {
          if (i > 0) out.push(',');
          out.push(JSON.stringify(keys[i]), ':');
          write(record[keys[i]], `${path}.${keys[i]}`, out, open);
        }
        out.push('}');
      }
      open.delete(value);
      return;
    }
    default:
      throw new CanonicalJsonError(`${path}: ${typeof value} is not a JSON value`);
  }
}

/** The canonical JSON text of `value`; throws a CanonicalJsonError naming the path of anything that is not JSON. */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  write(value, '$', out, new Set());
  return out.join('');
}

/** SHA-256 of the UTF-8 bytes of `text`, as 64 lowercase hex digits. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
