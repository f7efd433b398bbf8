// Secrets the server must read back (webhook signing secrets) are stored sealed: AES-256-GCM under a key
// the operator provides, with a random 96-bit nonce per value. A sealed value is
// `v1:<key id>:<base64url(nonce | ciphertext | tag)>`; the key id (a hash of the key, never the key) says
// which key sealed it, so that a box holding the new key and the old ones reads every value while a
// rotation re-seals them. The version, the key id and the value's context (the record it belongs to) are
// authenticated with it: a value copied onto another record does not open.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

export const SECRETS_KEY_BYTES = 32;
const VERSION = 'v1';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const KEY_ID = /^[0-9a-f]{16}$/;

export class SecretsKeyError extends Error {}

/**
 * A key as the operator writes it: 32 bytes in base64 (44 characters, or 43 without padding; base64url
 * too) or hex (64 characters). Anything else is refused, naming what was wrong but never the text.
 */
export function parseSecretsKey(text: string): Buffer {
  const t = text.trim();
  let key: Buffer | null = null;
  if (/^[0-9a-fA-F]{64}$/.test(t)) key = Buffer.from(t, 'hex');
  else if (/^[A-Za-z0-9+/_-]{43}={0,1}$/.test(t)) key = Buffer.from(t.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (!key || key.length !== SECRETS_KEY_BYTES) {
    throw new SecretsKeyError(
      `a secrets key is ${SECRETS_KEY_BYTES} random bytes written as base64 (44 characters) or hex (64 characters); ` +
        `this one is ${t.length} characters that are neither (make one with: openssl rand -base64 32)`,
    );
  }
  return key;
}

/** A fresh key, as base64. */
export function newSecretsKey(): string {
  return randomBytes(SECRETS_KEY_BYTES).toString('base64');
}

/** The id of a key: the first 8 bytes of a hash of it, in hex. It names the key without revealing it. */
export function keyIdOf(key: Buffer): string {
  return createHash('sha256').update('cowrie secrets key id\0').update(key).digest('hex').slice(0, 16);
}

/** The id of the key that sealed a value, or null when the value is not sealed (plain text). */
export function sealedKeyId(value: string): string | null {
  const [version, id] = value.split(':', 2);
  return version === VERSION && id !== undefined && KEY_ID.test(id) ? id : null;
}

/**
 * Seals with its first key and opens with any of its keys. The keys are loaded on first use, so that a
 * process that never touches a secret (most commands) never needs them.
 */
export class SecretBox {
  private loaded: Array<{ id: string; key: Buffer }> | null = null;

  constructor(private readonly load: () => readonly Buffer[]) {}

  static of(keys: readonly Buffer[]): SecretBox {
    return new SecretBox(() => keys);
  }

  private keys(): Array<{ id: string; key: Buffer }> {
    if (this.loaded) return this.loaded;
    const keys = this.load();
    if (keys.length === 0) throw new SecretsKeyError('no secrets key was given');
    this.loaded = keys.map((key) => ({ id: keyIdOf(key), key }));
    return this.loaded;
  }

  /** The ids of the keys, the sealing key's first. */
  keyIds(): string[] {
    return this.keys().map((k) => k.id);
  }

  /** A box that seals with `key` and opens with it and every key of this one (a rotation's). */
  withSealingKey(key: Buffer): SecretBox {
    return new SecretBox(() => [key, ...this.keys().map((k) => k.key)]);
  }

  seal(plaintext: string, context: string): string {
    const { id, key } = this.keys()[0]!;
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, nonce);
    cipher.setAAD(Buffer.from(`${VERSION}:${id}:${context}`));
    const sealed = Buffer.concat([nonce, cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${VERSION}:${id}:${sealed.toString('base64url')}`;
  }

  /** The plain text of a sealed value of `context`; a SecretsKeyError when no key of this box opens it. */
  open(value: string, context: string): string {
    const id = sealedKeyId(value);
    if (id === null) throw new SecretsKeyError('the stored secret is not sealed');
    const found = this.keys().find((k) => k.id === id);
    if (!found) throw new SecretsKeyError(`the stored secret was sealed with key ${id}, which this process does not have`);
    const data = Buffer.from(value.slice(VERSION.length + id.length + 2), 'base64url');
    if (data.length < NONCE_BYTES + TAG_BYTES) throw new SecretsKeyError('the stored secret is damaged');
    try {
      const decipher = createDecipheriv('aes-256-gcm', found.key, data.subarray(0, NONCE_BYTES));
      decipher.setAAD(Buffer.from(`${VERSION}:${id}:${context}`));
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      return Buffer.concat([decipher.update(data.subarray(NONCE_BYTES, data.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretsKeyError(`the stored secret does not open with key ${id}: it was altered or belongs to another record`);
    }
  }
}
