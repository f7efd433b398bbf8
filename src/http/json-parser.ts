// The JSON body parser: empty bodies are allowed (endpoints without a body), anything else must be a
// JSON object with no key twice in one object, nested at most MAX_BODY_DEPTH levels, whose strings are
// well-formed and free of NUL characters. The canonical form of the body is hashed here for idempotency,
// before validation can touch it.
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, truncate } from '../shared/errors.js';
import { RAW_TEXT, jsonShapeProblem, minifyJson, rawMember } from '../shared/raw-json.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** SHA-256 of the canonical JSON body ('' for no body). */
    bodyHash: string;
  }
}

/** Levels of nesting a body may have (the body object is level 1). */
export const MAX_BODY_DEPTH = 64;

/** `['items', 0, 'name']` -> `items[0].name`, as validation errors name a field. */
function paramOf(path: Array<string | number>): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out ? `.${p}` : p;
  return truncate(out, 200);
}

/**
 * A key twice in one object would otherwise be read as its last value, whatever the client meant; nesting
 * past MAX_BODY_DEPTH is refused before anything walks the body. Each answers 400 naming where it is.
 */
function shapeError(body: string): AppError | null {
  const problem = jsonShapeProblem(body, MAX_BODY_DEPTH);
  if (!problem) return null;
  const param = paramOf(problem.path);
  const message =
    problem.kind === 'duplicate'
      ? `Invalid ${param}: the same key appears twice in one object`
      : `Invalid ${param || 'body'}: JSON is nested at most ${MAX_BODY_DEPTH} levels deep (the body object is level 1)`;
  return new AppError('parameter_invalid', message, { param: param || null });
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function hashBody(body: unknown): string {
  return createHash('sha256')
    .update(body === undefined ? '' : canonical(body))
    .digest('hex');
}

/** Rejects strings no database can keep faithfully: NUL characters and lone surrogates. */
export function checkStrings(value: unknown, path: string): void {
  if (typeof value === 'string') {
    if (value.includes('\u0000') || !value.isWellFormed()) {
      throw new AppError('parameter_invalid', `Invalid ${path || 'body'}: text must be valid Unicode without NUL characters`, {
        param: path || null,
      });
    }
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => checkStrings(v, `${path}[${i}]`));
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const p = path ? `${path}.${k}` : k;
      checkStrings(k, p);
      checkStrings(v, p);
    }
  }
}

/** `metadata` is stored as the merchant wrote it: its text (without white space) goes with the object. */
function keepMetadataText(body: string, parsed: Record<string, unknown>): void {
  const metadata = parsed['metadata'];
  if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata)) return;
  const raw = rawMember(body, 'metadata');
  if (raw !== null) Object.defineProperty(metadata, RAW_TEXT, { value: minifyJson(raw) });
}

// JSON text is UTF-8 (RFC 8259): bytes that are not are refused, never replaced with U+FFFD. A leading
// byte order mark is kept, so JSON.parse refuses it as before.
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export function registerJsonParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request: FastifyRequest, raw: string | Buffer, done) => {
    let body: string;
    try {
      body = typeof raw === 'string' ? raw : UTF8.decode(raw);
    } catch {
      done(new AppError('invalid_json', 'The request body is not valid UTF-8 text'), undefined);
      return;
    }
    if (body.trim() === '') {
      request.bodyHash = hashBody(undefined);
      done(null, undefined);
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      done(new AppError('invalid_json', 'The request body is not valid JSON'), undefined);
      return;
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      done(new AppError('invalid_json', 'The request body must be a JSON object'), undefined);
      return;
    }
    const shape = shapeError(body);
    if (shape) {
      done(shape, undefined);
      return;
    }
    try {
      checkStrings(parsed, '');
    } catch (err) {
      done(err as Error, undefined);
      return;
    }
    keepMetadataText(body, parsed as Record<string, unknown>);
    // Only an idempotent request compares bodies; hashing every body would cost every request.
    if (request.headers['idempotency-key'] !== undefined) request.bodyHash = hashBody(parsed);
    done(null, parsed);
  });
  // Anything that is not JSON: 415 with a clear message, whatever the endpoint.
  app.addContentTypeParser('*', (_request, _payload, done) => {
    done(new AppError('unsupported_media_type', 'Send request bodies as JSON with Content-Type: application/json'), undefined);
  });
}
