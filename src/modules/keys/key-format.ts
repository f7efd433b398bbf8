import type { KeyType } from '../../db/schema.js';
import { randomBase62 } from '../../shared/ids.js';
import { sha256Hex } from '../../shared/sha256.js';
import type { Environment } from '../../shared/scope.js';

const TYPE_TAG: Record<KeyType, string> = { secret: 'sk', restricted: 'rk', publishable: 'pk' };
const TAG_TYPE: Record<string, KeyType> = { sk: 'secret', rk: 'restricted', pk: 'publishable' };

const KEY_PATTERN = /^cwk_(test|live)_(sk|rk|pk)_[0-9A-Za-z]{32,128}$/;

export interface ParsedKey {
  environment: Environment;
  type: KeyType;
}

/** Environment and type from a key's prefix, or null when the text is not a key at all. */
export function parseKey(text: string): ParsedKey | null {
  const m = KEY_PATTERN.exec(text);
  if (!m) return null;
  return { environment: m[1] as Environment, type: TAG_TYPE[m[2]!]! };
}

/** The environment a text claims by its prefix alone, for `environment_mismatch`. */
export function claimedEnvironment(text: string): Environment | null {
  if (text.startsWith('cwk_live_')) return 'live';
  if (text.startsWith('cwk_test_')) return 'test';
  return null;
}

export function generateKey(environment: Environment, type: KeyType): string {
  return `cwk_${environment}_${TYPE_TAG[type]}_${randomBase62(40)}`;
}

/** Keys carry 238 random bits, so a fast hash (SHA-256) is enough: no slow password hash is needed. */
export function hashKey(text: string): string {
  return sha256Hex(text);
}

export function keyHint(text: string): string {
  return `${text.slice(0, 12)}…${text.slice(-4)}`;
}
