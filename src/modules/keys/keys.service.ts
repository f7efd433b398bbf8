// API keys: created, shown once, hashed at rest; revoked; rotated with a grace period.
import type { ApiKeyRow, KeyType, Merchant } from '../../db/schema.js';
import { transaction, type Db, type Q } from '../../db/transaction.js';
import { HOUR_MS, type Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import type { Environment } from '../../shared/scope.js';
import { batcher } from '../../db/batcher.js';
import { generateKey, hashKey, keyHint } from './key-format.js';
import { parseAllowEntry } from './ip-allowlist.js';
import * as repo from './keys.repo.js';
import { SCOPES, canonicalScope, heldScopes, type Scope } from './scopes.js';

export interface IssueKeyInput {
  environment: Environment;
  type: KeyType;
  scopes?: readonly string[];
  allowedIps?: readonly string[];
  appId: string;
  expiresAt?: number | null;
}

export interface IssuedKey {
  id: string;
  /** The plaintext key: shown once, never stored. */
  key: string;
  object: 'api_key';
  merchant_id: string;
  app_id: string;
  environment: Environment;
  type: KeyType;
  scopes: Scope[];
  allowed_ips: string[];
  created_at: string;
  expires_at: string | null;
}

function invalid(message: string, param: string): AppError {
  return new AppError('parameter_invalid', message, { param });
}

export function normaliseScopes(type: KeyType, scopes: readonly string[] | undefined): Scope[] {
  if (type !== 'restricted') {
    if (scopes && scopes.length > 0) throw invalid(`Only restricted keys take scopes; a ${type} key's scopes are fixed`, 'scopes');
    return [];
  }
  if (!scopes || scopes.length === 0) throw invalid('A restricted key needs at least one scope', 'scopes');
  const out = new Set<Scope>();
  for (const s of scopes) {
    const c = canonicalScope(s.trim());
    if (!c) throw invalid(`Unknown scope '${s}'. Scopes: ${SCOPES.join(', ')}`, 'scopes');
    out.add(c);
  }
  return [...out];
}

export function normaliseAllowlist(environment: Environment, entries: readonly string[] | undefined): string[] {
  if (!entries || entries.length === 0) return [];
  if (environment !== 'live') throw invalid('IP allowlists apply to live keys only', 'allowed_ips');
  return entries.map((e) => {
    try {
      parseAllowEntry(e);
    } catch (err) {
      throw invalid((err as Error).message, 'allowed_ips');
    }
    return e.trim();
  });
}

/** Issues a key for a merchant already read (inside the caller's transaction, when it has one). */
export async function issueKey(db: Q, clock: Clock, merchant: Merchant, input: IssueKeyInput): Promise<IssuedKey> {
  if (input.environment === 'live' && merchant.kyb_status !== 'verified') {
    throw invalid(`Merchant ${merchant.id} is not verified (KYB); live keys need a verified merchant`, 'env');
  }
  const scopes = normaliseScopes(input.type, input.scopes);
  const allowedIps = normaliseAllowlist(input.environment, input.allowedIps);
  const appId = input.appId;
  const plaintext = generateKey(input.environment, input.type);
  const now = clock.nowMs();
  const id = newId('key');
  await repo.insertKey(db, {
    id,
    merchant_id: merchant.id,
    app_id: appId,
    environment: input.environment,
    type: input.type,
    key_hash: hashKey(plaintext),
    key_hint: keyHint(plaintext),
    scopes: JSON.stringify(scopes),
    allowed_ips: JSON.stringify(allowedIps),
    created_at: now,
    expires_at: input.expiresAt ?? null,
    revoked_at: null,
    replaced_by: null,
  });
  return {
    id,
    key: plaintext,
    object: 'api_key',
    merchant_id: merchant.id,
    app_id: appId,
    environment: input.environment,
    type: input.type,
    scopes: heldScopes(input.type, scopes),
    allowed_ips: allowedIps,
    created_at: new Date(now).toISOString(),
    expires_at: input.expiresAt ? new Date(input.expiresAt).toISOString() : null,
  };
}

export async function revokeKey(db: Db, clock: Clock, keyId: string): Promise<ApiKeyRow> {
  const key = await repo.findKeyById(db, keyId);
  if (!key) throw new AppError('resource_missing', `No such key: '${keyId}'`, { param: 'id' });
  if (key.revoked_at === null) await repo.updateKey(db, keyId, { revoked_at: clock.nowMs() });
  return (await repo.findKeyById(db, keyId))!;
}

export interface RotateOutcome {
  old_key: { id: string; expires_at: string };
  new_key: IssuedKey;
}

/** A new key with the same type, scopes and allowlist; the old one keeps working until `expiresInHours`. */
export async function rotateKey(db: Db, clock: Clock, keyId: string, expiresInHours = 24): Promise<RotateOutcome> {
  if (!Number.isFinite(expiresInHours) || expiresInHours < 0 || expiresInHours > 24 * 30) {
    throw invalid('--expires-in-hours must be between 0 and 720', 'expires_in_hours');
  }
  return transaction(db, async (trx) => {
    const found = await repo.lockKeyWithMerchant(trx, keyId);
    if (!found) throw new AppError('resource_missing', `No such key: '${keyId}'`, { param: 'id' });
    const { key: old, merchant } = found;
    const now = clock.nowMs();
    if (old.revoked_at !== null || (old.expires_at !== null && old.expires_at <= now)) {
      throw invalid(`Key ${keyId} is already revoked or expired; create a new key instead`, 'id');
    }
    const issued = await issueKey(trx, clock, merchant, {
      environment: old.environment,
      type: old.type,
      scopes: JSON.parse(old.scopes) as string[],
      allowedIps: JSON.parse(old.allowed_ips) as string[],
      appId: old.app_id,
    });
    const requested = now + Math.round(expiresInHours * HOUR_MS);
    // A grace period never grows: a key rotated before keeps its earlier expiry, and that is what is reported.
    const expiresAt = old.expires_at === null ? requested : Math.min(old.expires_at, requested);
    await repo.updateKey(trx, keyId, { expires_at: expiresAt, replaced_by: issued.id });
    return { old_key: { id: keyId, expires_at: new Date(expiresAt).toISOString() }, new_key: issued };
  });
}

export interface AuthenticatedKey {
  keyId: string;
  merchantId: string;
  appId: string;
  environment: Environment;
  type: KeyType;
  scopes: Scope[];
  allowedIps: string[];
  expiresAt: number | null;
  merchant: Merchant;
  /** The merchant's sandbox clock offset when the key was checked (applies to sandbox requests). */
  sandboxOffsetMs: number;
}

/** The key as requests see it; built once per row read (a batch of requests with one key shares it). */
const authenticatedOf = new WeakMap<repo.KeyWithMerchant, AuthenticatedKey>();

function currentKey(found: repo.KeyWithMerchant | undefined, now: number): AuthenticatedKey | null {
  if (!found) return null;
  const { key, merchant, sandboxOffsetMs } = found;
  if (key.revoked_at !== null && key.revoked_at <= now) return null;
  if (key.expires_at !== null && key.expires_at <= now) return null;
  let auth = authenticatedOf.get(found);
  if (!auth) {
    auth = {
      keyId: key.id,
      merchantId: key.merchant_id,
      appId: key.app_id,
      environment: key.environment,
      type: key.type,
      scopes: heldScopes(key.type, JSON.parse(key.scopes) as Scope[]),
      allowedIps: JSON.parse(key.allowed_ips) as string[],
      expiresAt: key.expires_at,
      merchant,
      sandboxOffsetMs,
    };
    authenticatedOf.set(found, auth);
  }
  return auth;
}

/** The key behind a plaintext, or null when it is unknown, revoked or expired. */
export async function authenticateKey(db: Db, clock: Clock, plaintext: string): Promise<AuthenticatedKey | null> {
  const hash = hashKey(plaintext);
  return currentKey((await repo.findKeysByHashes(db, [hash])).get(hash), clock.nowMs());
}

/**
 * authenticateKey for the request path: the keys of every request that arrives in one turn of the event
 * loop are looked up by one query. Nothing is cached, so a revoked key is refused by the next request.
 */
export function keyAuthenticator(db: Db, clock: Clock): (plaintext: string) => Promise<AuthenticatedKey | null> {
  const lookup = batcher<string, repo.KeyWithMerchant | undefined>(
    async (hashes) => {
      const found = await repo.findKeysByHashes(db, [...new Set(hashes)]);
      return hashes.map((h) => found.get(h));
    },
    { maxBatchSize: 200 },
  );
  return async (plaintext) => currentKey(await lookup(hashKey(plaintext)), clock.nowMs());
}

/** A key as the operator's listing shows it: never its secret or hash, only the hint it is recognised by. */
export interface KeyListing {
  id: string;
  object: 'api_key';
  environment: string;
  type: string;
  hint: string;
  scopes: string[];
  allowed_ips: string[];
  status: 'active' | 'expired' | 'revoked';
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  replaced_by: string | null;
}

export async function listKeys(db: Q, merchantId: string, nowMs: number): Promise<KeyListing[]> {
  return (await repo.listKeysOf(db, merchantId)).map((k) => ({
    id: k.id,
    object: 'api_key',
    environment: k.environment,
    type: k.type,
    hint: k.key_hint,
    scopes: JSON.parse(k.scopes) as string[],
    allowed_ips: JSON.parse(k.allowed_ips) as string[],
    status: k.revoked_at !== null ? 'revoked' : k.expires_at !== null && k.expires_at <= nowMs ? 'expired' : 'active',
    created_at: new Date(k.created_at).toISOString(),
    expires_at: k.expires_at === null ? null : new Date(k.expires_at).toISOString(),
    revoked_at: k.revoked_at === null ? null : new Date(k.revoked_at).toISOString(),
    replaced_by: k.replaced_by,
  }));
}
