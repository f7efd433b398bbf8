// JSON kept as the text it arrived in. A merchant's `metadata` is stored and echoed exactly: key order
// (JavaScript objects put integer-like keys first), number spelling (`12.50`, `1e3`, integers past 2^53)
// and nesting as sent. Its text travels as a RawJson value and is spliced, unparsed, into every JSON
// text that carries it (responses, event payloads) by serializeJson.

/** Where the raw text of a parsed object is kept (the JSON parser sets it on `metadata`). */
export const RAW_TEXT = Symbol('cowrie.rawJsonText');

/** A JSON value carried as its text. */
export class RawJson {
  constructor(readonly text: string) {}

  /** Outside serializeJson (a log line, a plain JSON.stringify) it stands for its parsed value. */
  toJSON(): unknown {
    if (capturing !== null) {
      // An empty object has one spelling as JSON.stringify writes it: nothing to splice (most metadata).
      if (this.text === '{}') return EMPTY;
      capturing.push(this.text);
      return `${SENTINEL}${capturing.length - 1}`;
    }
    return JSON.parse(this.text);
  }
}

const EMPTY = Object.freeze({});
const SENTINEL = '\u0000raw:';
// The sentinel as JSON.stringify writes it (a NUL is escaped); NUL never occurs in stored text.
const sentinelJson = (i: number) => `"\\u0000raw:${i}"`;
const SENTINEL_JSON = /"\\u0000raw:(\d+)"/g;

/**
 * `out` with the i-th sentinel replaced by texts[i], for each i. JSON.stringify writes them in the order
 * it called toJSON, each once, so each is found after the one before; if one is not, every sentinel found
 * is replaced wherever it is.
 */
function splice(out: string, texts: readonly string[]): string {
  let result = '';
  let from = 0;
  for (let i = 0; i < texts.length; i++) {
    const needle = sentinelJson(i);
    const at = out.indexOf(needle, from);
    if (at < 0) return out.replace(SENTINEL_JSON, (_, n: string) => texts[Number(n)]!);
    result += out.slice(from, at) + texts[i]!;
    from = at + needle.length;
  }
  return result + out.slice(from);
}

let capturing: string[] | null = null;

/**
 * `serialize()` (JSON.stringify, or a compiled serializer that calls it) with every RawJson inside it
 * written as its own text.
 */
export function serializeWith(serialize: () => string): string {
  if (capturing !== null) return serialize();
  const texts: string[] = [];
  capturing = texts;
  let out: string;
  try {
    out = serialize();
  } finally {
    capturing = null;
  }
  return texts.length === 0 ? out : splice(out, texts);
}

/** JSON.stringify, with every RawJson inside `value` written as its own text. */
export function serializeJson(value: unknown): string {
  return serializeWith(() => JSON.stringify(value));
}

/** The text of a RawJson, or of an object as it arrived (when the parser kept it), else its JSON. */
export function jsonTextOf(value: object): string {
  if (value instanceof RawJson) return value.text;
  return (value as { [RAW_TEXT]?: string })[RAW_TEXT] ?? JSON.stringify(value);
}

const WS = new Set([' ', '\t', '\n', '\r']);

/** Index just past the string token that starts at `i` (a `"`). */
function skipString(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    const c = text[j];
    if (c === '\\') j++;
    else if (c === '"') return j + 1;
  }
  throw new SyntaxError('unterminated string');
}

/** Index just past the JSON value that starts at `i` (the text is valid JSON). */
function skipValue(text: string, i: number): number {
  const c = text[i];
  if (c === '"') return skipString(text, i);
  if (c === '{' || c === '[') {
    let depth = 0;
    for (let j = i; j < text.length; j++) {
      const d = text[j];
      if (d === '"') j = skipString(text, j) - 1;
      else if (d === '{' || d === '[') depth++;
      else if (d === '}' || d === ']') {
        depth--;
        if (depth === 0) return j + 1;
      }
    }
    throw new SyntaxError('unterminated container');
  }
  let j = i;
  while (j < text.length && !WS.has(text[j]!) && text[j] !== ',' && text[j] !== '}' && text[j] !== ']') j++;
  return j;
}

function skipWs(text: string, i: number): number {
  while (i < text.length && WS.has(text[i]!)) i++;
  return i;
}

/**
 * The raw text of the top-level member `key` of a JSON object text (valid JSON), or null when it has none.
 * Of duplicate members the last counts, as in JSON.parse.
 */
export function rawMember(text: string, key: string): string | null {
  let i = skipWs(text, 0);
  if (text[i] !== '{') return null;
  let found: string | null = null;
  i = skipWs(text, i + 1);
  while (i < text.length && text[i] !== '}') {
    const keyEnd = skipString(text, i);
    const name = JSON.parse(text.slice(i, keyEnd)) as string;
    const start = skipWs(text, skipWs(text, keyEnd) + 1);
    const end = skipValue(text, start);
    if (name === key) found = text.slice(start, end);
    i = skipWs(text, end);
    if (text[i] === ',') i = skipWs(text, i + 1);
  }
  return found;
}

/** Valid JSON text without the white space between its tokens. */
export function minifyJson(text: string): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') {
      i = skipString(text, i) - 1;
    } else if (WS.has(c)) {
      out += text.slice(from, i);
      from = i + 1;
    }
  }
  return out + text.slice(from);
}

/** What is wrong with the shape of a JSON text: a key repeated in one object, or nesting too deep. */
export interface JsonShapeProblem {
  kind: 'duplicate' | 'depth';
  /** Keys and array indexes from the root: to the repeated key, or to the first container too deep. */
  path: Array<string | number>;
}

/**
 * The first problem of shape in a JSON text (valid JSON), in text order: an object that repeats a key, or
 * a container nested deeper than `maxDepth` (the root is level 1); null when there is none. It reads the
 * text in one loop with a stack of the open containers, so no nesting, however deep, can exhaust the call
 * stack, and it stops at the first container past `maxDepth`.
 */
export function jsonShapeProblem(text: string, maxDepth = Infinity): JsonShapeProblem | null {
  // One frame per open container: the keys an object has had so far, and where in it the scan is (the
  // key being read in an object, the index in an array).
  const open: Array<{ keys: Set<string> | null; at: string | number }> = [];
  const path = () => open.map((f) => f.at);
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const end = skipString(text, i);
      const top = open.at(-1);
      if (expectKey && top?.keys) {
        const name = JSON.parse(text.slice(i, end)) as string;
        top.at = name;
        if (top.keys.has(name)) return { kind: 'duplicate', path: path() };
        top.keys.add(name);
        expectKey = false;
      }
      i = end - 1;
    } else if (c === '{' || c === '[') {
      if (open.length >= maxDepth) return { kind: 'depth', path: path() };
      open.push(c === '{' ? { keys: new Set(), at: '' } : { keys: null, at: 0 });
      expectKey = c === '{';
    } else if (c === '}' || c === ']') {
      open.pop();
      expectKey = false;
    } else if (c === ',') {
      const top = open.at(-1);
      if (top?.keys) expectKey = true;
      else if (top) top.at = (top.at as number) + 1;
    }
  }
  return null;
}

/**
 * Where the first object in a JSON text repeats a key: the path from the value's root (keys and array
 * indexes) ending with the repeated key; null when no object does.
 */
export function duplicateKeyPath(text: string): Array<string | number> | null {
  const problem = jsonShapeProblem(text);
  return problem?.kind === 'duplicate' ? problem.path : null;
}
