// Idempotency-Key on every POST (DECISIONS "Idempotency"). The first request with a key inserts an
// in-progress row under a unique (merchant, key) constraint, so of any number of concurrent identical
// requests exactly one runs; the others get 409 idempotency_in_progress or, once it finished, its
// response replayed byte for byte. Outcomes under 500 are remembered for 24 hours; a 5xx is forgotten
// so the client can retry.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IdempotencyKeysTable } from '../db/schema.js';
import { HOUR_MS, type Clock } from '../shared/clock.js';
import { AppError } from '../shared/errors.js';
import * as repo from './idempotency.repo.js';
import { hashBody } from './json-parser.js';
import type { Db } from '../db/transaction.js';

export const IDEMPOTENCY_RETENTION_MS = 24 * HOUR_MS;
/** An in-progress row older than this belongs to a request that died; a retry may take it over. */
export const IDEMPOTENCY_LOCK_MS = 60_000;
const MAX_KEY_LENGTH = 255;

declare module 'fastify' {
  interface FastifyRequest {
    idempotency: { merchantId: string; key: string; createdAt: number } | null;
  }
}

function pathOf(request: FastifyRequest): string {
  // The router ignores a trailing slash, so the key does too: /v1/customers/ is /v1/customers.
  return (request.url.split('?')[0] ?? '').replace(/(.)\/$/, '$1').slice(0, 1000);
}

/** No body and an empty object are the same request: the route reads both as {}. */
const EMPTY_BODY_HASH = hashBody(undefined);
const EMPTY_OBJECT_HASH = hashBody({});

export function registerIdempotency(app: FastifyInstance, deps: { db: Db; clock: Clock }): void {
  const { db, clock } = deps;
  app.decorateRequest('idempotency', null);

  // Callback style, so that a request without the header costs no promise.
  app.addHook('preHandler', (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => {
    if (request.method !== 'POST' || !request.auth || request.headers['idempotency-key'] === undefined) {
      done();
      return;
    }
    // A replayed response is sent here, and then the handler must not run: done() is not called.
    claim(request, reply).then((replayed) => {
      if (!replayed) done();
    }, done);
  });

  /** Claims the key for this request (false), or answers with the response it already had (true). */
  async function claim(request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
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
        expires_at: now + IDEMPOTENCY_LOCK_MS,
      });
      if (claimed) {
        request.idempotency = { merchantId, key, createdAt: now };
        return false;
      }
      const existing = await repo.findKey(db, merchantId, key);
      if (!existing) continue; // forgotten between the two statements: try to claim it again
      if (existing.expires_at <= now) {
        // Past retention, or the lock of a request that died: forget it (only if still that row) and claim.
        await repo.forgetKey(db, { merchantId, key, createdAt: existing.created_at }, existing.state);
        continue;
      }
      answerExisting(request, reply, existing, path, requestHash);
      return true;
    }
    throw new AppError('idempotency_in_progress', 'A request with this Idempotency-Key is being processed; retry shortly.');
  }

  app.addHook(
    'onSend',
    (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: Error | null, payload?: unknown) => void) => {
      const idem = request.idempotency;
      if (!idem) {
        done(null, payload);
        return;
      }
      request.idempotency = null;
      void save(request, reply, idem, payload).then(
        () => done(null, payload),
        () => done(null, payload),
      );
    },
  );

  /** Remembers the response of a claimed key (or forgets a 5xx); never fails the response. */
  async function save(
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
          content_type: String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8'),
          response_body: payload,
          expires_at: idem.createdAt + IDEMPOTENCY_RETENTION_MS,
        });
      }
    } catch (err) {
      // The response still goes out; the key's lock lapses after IDEMPOTENCY_LOCK_MS.
      request.log.error({ err, reqId: request.id }, 'could not record idempotent response');
    }
  }
}

function answerExisting(
  request: FastifyRequest,
  reply: FastifyReply,
  existing: IdempotencyKeysTable,
  path: string,
  requestHash: string,
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
  return reply
    .code(existing.status_code)
    .header('Idempotent-Replayed', 'true')
    .type(existing.content_type ?? 'application/json; charset=utf-8')
    .send(existing.response_body);
}
