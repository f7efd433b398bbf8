// The rules of `metadata`, the free-form JSON object every resource that takes one accepts: values of any
// JSON type, nested; at most 50 top-level keys of 1 to 40 characters, at most 5 levels deep (the metadata
// object is the first), at most 16 KiB as JSON text, no key twice in one object. Keys and values without NUL
// characters are the JSON parser's rule for every string of a body.
import { duplicateKeyPath, jsonTextOf } from './raw-json.js';

export const METADATA_LIMITS = { keys: 50, keyLength: 40, depth: 5, bytes: 16 * 1024 } as const;

export const METADATA_DESCRIPTION =
  `Free-form JSON object, stored and echoed exactly (key order, nesting and number spelling kept). Values may be ` +
  `strings, numbers, booleans, null, arrays and objects. Limits: at most ${METADATA_LIMITS.keys} top-level keys of 1 to ` +
  `${METADATA_LIMITS.keyLength} characters, nesting at most ${METADATA_LIMITS.depth} levels deep (the metadata object is level 1), ` +
  `at most ${METADATA_LIMITS.bytes} bytes (16 KiB) as JSON text, no key twice in one object.`;

export interface MetadataProblem {
  /** Keys and array indexes from the metadata object to the offending value. */
  path: Array<string | number>;
  message: string;
}

/** What breaks a rule the JSON schema cannot say (size, depth, repeated keys), or null. */
export function metadataProblem(metadata: object): MetadataProblem | null {
  const text = jsonTextOf(metadata);
  const bytes = Buffer.byteLength(text);
  if (bytes > METADATA_LIMITS.bytes) {
    return { path: [], message: `must be at most ${METADATA_LIMITS.bytes} bytes (16 KiB) as JSON text; this is ${bytes}` };
  }
  const deep = tooDeep(metadata, [], 1);
  if (deep) return { path: deep, message: `nesting is at most ${METADATA_LIMITS.depth} levels deep (the metadata object is level 1)` };
  const repeated = duplicateKeyPath(text);
  if (repeated) return { path: repeated, message: 'the same key appears twice in one object' };
  return null;
}

/** The path of the first object or array nested deeper than the limit, or null. */
function tooDeep(value: unknown, path: Array<string | number>, level: number): Array<string | number> | null {
  if (value === null || typeof value !== 'object') return null;
  if (level > METADATA_LIMITS.depth) return path;
  const entries: Array<[string | number, unknown]> = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
  for (const [key, child] of entries) {
    const found = tooDeep(child, [...path, key], level + 1);
    if (found) return found;
  }
  return null;
}
