import { createHash } from 'node:crypto';
import { MAX_JSON_DEPTH, tooDeep } from './jsonDepth';

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
 * The walk's state: `keys[i]` is the key of the value at depth i + 1 and `parents[i]` the object
 * at depth i, so a cycle is found by looking up the (shallow) chain of parents, and the path is
 * built only for an error.
 */
interface Walk {
  keys: (string | number)[];
  parents: object[];
  /** The shape of the last object met at each depth: an array's objects mostly share one. */
  last: (Shape | undefined)[];
}

const pathOf = (walk: Walk, depth: number): string =>
  walk.keys.slice(0, depth).reduce<string>((p, k) => (typeof k === 'number' ? `${p}[${k}]` : `${p}.${k}`), '$');

// Most keys are printable ASCII without a quote or backslash: their JSON text is the key in quotes.
const PLAIN_KEY = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
const keyText = (k: string): string => (PLAIN_KEY.test(k) ? `"${k}"` : JSON.stringify(k));

/** An object shape (its keys in their own order) with its keys sorted and their JSON texts. */
interface Shape {
  own: readonly string[];
  keys: string[];
  texts: string[];
}

/**
 * Shapes by their key lists. A manifest is a thousand objects of one shape: sorting and quoting
 * their keys once, not per object, took a fifth off hashing one, and comparing an object's keys
 * with those of the last object at its depth, before building the lookup text, a further third.
 */
const shapes = new Map<string, Shape>();
const MAX_SHAPES = 512;

function shapeOf(own: string[], walk: Walk, depth: number): Shape {
  const last = walk.last[depth];
  if (last !== undefined && sameKeys(last.own, own)) return last;
  // Length-prefixed, so no two key lists share a shape whatever characters the keys hold.
  let text = '';
  for (const k of own) text += `${k.length}:${k}`;
  let shape = shapes.get(text);
  if (shape === undefined) {
    const keys = [...own].sort();
    shape = { own, keys, texts: keys.map(keyText) };
    if (shapes.size < MAX_SHAPES) shapes.set(text, shape);
  }
  walk.last[depth] = shape;
  return shape;
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * JSON.stringify would quietly drop `undefined`, write NaN as null and a Date as a string: two
 * different values would then share a hash. Anything JSON cannot hold exactly is refused instead,
 * with the path to it.
 */
function write(value: unknown, depth: number, walk: Walk): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new CanonicalJsonError(`${pathOf(walk, depth)}: ${value} is not a JSON number`);
      // The shortest round-trip form, as JSON.stringify writes it; -0 becomes 0.
      return String(value);
    case 'object': {
      if (value === null) return 'null';
      // The value at `depth` is at level depth + 1; the first key is enough to say where.
      if (depth >= MAX_JSON_DEPTH) throw new CanonicalJsonError(`${pathOf(walk, 1)}: ${tooDeep()}`);
      for (let i = 0; i < depth; i++) {
        if (walk.parents[i] === value) throw new CanonicalJsonError(`${pathOf(walk, depth)}: a cycle is not a JSON value`);
      }
      walk.parents[depth] = value;
      let out: string;
      if (Array.isArray(value)) {
        out = '[';
        for (let i = 0; i < value.length; i++) {
          walk.keys[depth] = i;
          // A hole reads as undefined, which is refused like any other undefined.
          out += (i > 0 ? ',' : '') + write(value[i], depth + 1, walk);
        }
        return out + ']';
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) {
        throw new CanonicalJsonError(`${pathOf(walk, depth)}: a ${(value as object).constructor?.name ?? 'class instance'} is not a JSON value`);
      }
      const record = value as Record<string, unknown>;
      const { keys, texts } = shapeOf(Object.keys(record), walk, depth);
      out = '{';
      for (let i = 0; i < keys.length; i++) {
        walk.keys[depth] = keys[i];
        out += (i > 0 ? ',' : '') + texts[i] + ':' + write(record[keys[i]], depth + 1, walk);
      }
      return out + '}';
    }
    default:
      throw new CanonicalJsonError(`${pathOf(walk, depth)}: ${typeof value} is not a JSON value`);
  }
}

/** The canonical JSON text of `value`; throws a CanonicalJsonError naming the path of anything that is not JSON. */
export function canonicalJson(value: unknown): string {
  return write(value, 0, { keys: [], parents: [], last: [] });
}

/** SHA-256 of the UTF-8 bytes of `text`, as 64 lowercase hex digits. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
