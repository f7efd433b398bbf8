// Idempotency-Key on every POST. The first request with a key inserts an in-progress row under a unique
// (merchant, key) constraint, so of any number of concurrent identical requests exactly one runs; the
// others get 409 idempotency_in_progress or, once it finished, its response replayed byte for byte. A
// request that writes a record saves its response in the record's own transaction (idempotentResponse:
// the route hands it to the service), so after a crash at any point a retry replays the record's response
// or, if nothing committed, makes the record once; any other outcome under 500 is saved as the response
// leaves. Responses are remembered for 24 hours; a 5xx is forgotten so the client can retry. The mark of a
// request whose process died lapses after COWRIE_IDEMPOTENCY_LOCK_S.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import * as repo from '../db/idempotency-keys.js';
import type { IdempotencyKeysTable } from '../db/schema.js';
import { afterCommitOrNow, type CommitWith, type Db } from '../db/transaction.js';
import { HOUR_MS, type Clock } from '../shared/clock.js';
import { AppError } from '../shared/errors.js';
import type { SecretBox } from '../shared/secret-box.js';
import { hashBody } from './json-parser.js';

export const IDEMPOTENCY_RETENTION_MS = 24 * HOUR_MS;
/** By default an in-progress row older than this belongs to a request that died; a retry may take it over. */
export const IDEMPOTENCY_LOCK_MS = 60_000;
const MAX_KEY_LENGTH = 255;
const JSON_TYPE = 'application/json; charset=utf-8';

interface ClaimedKey extends repo.KeyRef {
  /** The response saved with the record (it committed): it is what leaves, and nothing is left to save. */
  saved: string | null;
  /** Seals a saved response that carries a secret (the server's secrets key). */
  box?: SecretBox;
}

/** A saved response stored sealed (it carries a secret shown once, a webhook endpoint's signing secret). */
const SEALED = 'sealed:';
const sealContext = (ref: repo.KeyRef) => `idempotency/${ref.merchantId}/${ref.key}/${ref.createdAt}`;

declare module 'fastify' {
  interface FastifyRequest {
    idempotency: ClaimedKey | null;
  }
}

/**
 * What a route that writes a record hands its service, so that the response is saved in the record's own
 * transaction; undefined when the request carries no Idempotency-Key. `render` makes the body from the
 * service's result exactly as the route then answers it (the route's serializer writes both, unless `render`
 * answers JSON text, which is saved and sent as it is).
 */
export function idempotentResponse<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  render: (result: T) => unknown,
  opts: { carriesSecret?: boolean } = {},
): CommitWith<T> | undefined {
  const idem = request.idempotency;
  if (!idem) return undefined;
  const response = (result: T): { body: string; stored: repo.SavedResponse } => {
    reply.code(status);
    const rendered = render(result);
    // A body the route already wrote as JSON text is saved as it is answered.
    const body = typeof rendered === 'string' ? rendered : String(reply.serialize(rendered));
    // A response that shows a secret once is kept sealed, as the secret itself is.
    const stored = opts.carriesSecret && idem.box ? `${SEALED}${idem.box.seal(body, sealContext(idem))}` : body;
    return {
      body,
      stored: {
        status_code: status,
        content_type: JSON_TYPE,
        response_body: stored,
        expires_at: idem.createdAt + IDEMPOTENCY_RETENTION_MS,
      },
    };
  };
  return {
    async inTransaction(tx, result) {
      const { body, stored } = response(result);
      await repo.saveResponse(tx, idem, stored);
      afterCommitOrNow(tx, () => (idem.saved = body));
    },
    addTo(batch, db, result) {
      const { body, stored } = response(result);
      batch.add(repo.saveResponseStatement(db, idem, stored), () => (idem.saved = body));
    },
  };
}

function pathOf(request: FastifyRequest): string {
  // The router ignores a trailing slash, so the key does too: /v1/customers/ is /v1/customers.
  return (request.url.split('?')[0] ?? '').replace(/(.)\/$/, '$1').slice(0, 1000);
}

/** No body and an empty object are the same request: the route reads both as {}. */
const EMPTY_BODY_HASH = hashBody(undefined);
const EMPTY_OBJECT_HASH = hashBody({});

interface IdempotencyDeps {
  db: Db;
  clock: Clock;
  /** Seals saved responses that carry a secret. */
  box?: SecretBox;
  /** How long the mark of a request whose process died holds the key. */
  lockMs?: number;
}

export function registerIdempotency(app: FastifyInstance, deps: IdempotencyDeps): void {
  app.decorateRequest('idempotency', null);

  // Callback style, so that a request without the header costs no promise.
  app.addHook('preHandler', (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => {
    if (request.method !== 'POST' || !request.auth || request.headers['idempotency-key'] === undefined) {
      done();
      return;
    }
    // A replayed response is sent here, and then the handler must not run: done() is not called.
    claim(deps, request, reply).then((replayed) => {
      if (!replayed) done();
    }, done);
  });

  app.addHook(
    'onSend',
    (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: Error | null, payload?: unknown) => void) => {
      const idem = request.idempotency;
      if (!idem) {
        done(null, payload);
        return;
      }
      // Saved with its record: exactly those bytes leave, as every replay will. An error after the record
      // committed leaves the saved response in place, so a retry replays the record rather than make another.
      if (idem.saved !== null) {
        done(null, reply.statusCode < 300 ? idem.saved : payload);
        return;
      }
      request.idempotency = null;
      void saveAsItLeaves(deps.db, request, reply, idem, payload).then(
        () => done(null, payload),
        () => done(null, payload),
      );
    },
  );
}

/** The key of the request, checked: 1 to MAX_KEY_LENGTH printable ASCII characters without spaces. */
function keyOf(request: FastifyRequest): string {
  const header = request.headers['idempotency-key']!;
  const key = Array.isArray(header) ? (header[0] ?? '') : header;
  if (key.length === 0 || key.length > MAX_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(key)) {
    throw new AppError(
      'parameter_invalid',
      `Invalid Idempotency-Key: use 1 to ${MAX_KEY_LENGTH} printable ASCII characters without spaces`,
      {
        param: 'Idempotency-Key',
      },
    );
  }
  return key;
}

/** Claims the key for this request (false), or answers with the response it already had (true). */
async function claim(deps: IdempotencyDeps, request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
  const { db, clock } = deps;
  const key = keyOf(request);
  const merchantId = request.auth!.merchantId;
  const requestHash = !request.bodyHash || request.bodyHash === EMPTY_BODY_HASH ? EMPTY_OBJECT_HASH : request.bodyHash;
  const path = pathOf(request);
  for (let attempt = 0; attempt < 3; attempt++) {
    const now = clock.nowMs();
    const claimed = await repo.claimKey(db, {
      merchant_id: merchantId,
      idem_key: key,
      environment: request.environment,
      method: request.method,
      path,
      request_hash: requestHash,
      state: 'in_progress',
      status_code: null,
      content_type: null,
      response_body: null,
      created_at: now,
      expires_at: now + (deps.lockMs ?? IDEMPOTENCY_LOCK_MS),
    });
    if (claimed) {
      request.idempotency = { merchantId, key, createdAt: now, saved: null, ...(deps.box ? { box: deps.box } : {}) };
      return false;
    }
    const existing = await repo.findKey(db, merchantId, key);
    if (!existing) continue; // forgotten between the two statements: try to claim it again
    if (existing.expires_at <= now) {
      // Past retention, or the lock of a request that died: forget it (only if still that row) and claim.
      await repo.forgetKey(db, { merchantId, key, createdAt: existing.created_at }, existing.state);
      continue;
    }
    answerExisting(request, reply, existing, path, requestHash, deps.box);
    return true;
  }
  throw new AppError('idempotency_in_progress', 'A request with this Idempotency-Key is being processed; retry shortly.');
}

/** Remembers the response of a claimed key (or forgets a 5xx); never fails the response. */
async function saveAsItLeaves(
  db: Db,
  request: FastifyRequest,
  reply: FastifyReply,
  idem: NonNullable<FastifyRequest['idempotency']>,
  payload: unknown,
): Promise<void> {
  try {
    if (reply.statusCode >= 500 || typeof payload !== 'string') {
      await repo.forgetKey(db, idem);
    } else {
      await repo.saveResponse(db, idem, {
        status_code: reply.statusCode,
        content_type: String(reply.getHeader('content-type') ?? JSON_TYPE),
        response_body: payload,
        expires_at: idem.createdAt + IDEMPOTENCY_RETENTION_MS,
      });
    }
  } catch (err) {
    // The response still goes out; the key's mark lapses after the lock time (COWRIE_IDEMPOTENCY_LOCK_S).
    request.log.error({ err, reqId: request.id }, 'could not record idempotent response');
  }
}

function answerExisting(
  request: FastifyRequest,
  reply: FastifyReply,
  existing: IdempotencyKeysTable,
  path: string,
  requestHash: string,
  box: SecretBox | undefined,
): FastifyReply {
  if (existing.environment !== request.environment) {
    throw new AppError('idempotency_conflict', 'This Idempotency-Key was already used in the other environment; use a new key.', {
      param: 'Idempotency-Key',
    });
  }
  if (existing.method !== request.method || existing.path !== path || existing.request_hash !== requestHash) {
    throw new AppError(
      'idempotency_conflict',
      'This Idempotency-Key was already used with different parameters or on another endpoint; use a new key.',
      { param: 'Idempotency-Key' },
    );
  }
  if (existing.state !== 'done' || existing.status_code === null || existing.response_body === null) {
    throw new AppError('idempotency_in_progress', 'A request with this Idempotency-Key is still being processed; retry shortly.', {
      param: 'Idempotency-Key',
    });
  }
  let body = existing.response_body;
  if (body.startsWith(SEALED)) {
    const ref = { merchantId: existing.merchant_id, key: existing.idem_key, createdAt: existing.created_at };
    try {
      if (!box) throw new Error('a sealed response and no secrets key');
      body = box.open(body.slice(SEALED.length), sealContext(ref));
    } catch {
      throw new AppError('idempotency_conflict', 'The response saved for this Idempotency-Key can no longer be read; use a new key.', {
        param: 'Idempotency-Key',
      });
    }
  }
  return reply
    .code(existing.status_code)
    .header('Idempotent-Replayed', 'true')
    .type(existing.content_type ?? 'application/json; charset=utf-8')
    .send(body);
}
