/**
 * Whether two JSON values are equal as values: what their canonical JSON texts would say
 * (canonicalJson.ts), without writing either. Objects are equal with the same keys, in any order,
 * and equal values under them; arrays element for element; numbers by value (0 and -0 are one).
 * Only for values already known to be JSON (parsed against a schema, say): nothing is refused.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = Object.keys(x);
  if (keys.length !== Object.keys(y).length) return false;
  for (const k of keys) if (!Object.hasOwn(y, k) || !jsonEqual(x[k], y[k])) return false;
  return true;
}
