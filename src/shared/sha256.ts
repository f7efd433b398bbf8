// SHA-256 of a text as lowercase hex: what is stored of a secret that must be recognised but never shown
// again (API keys, session tokens, recovery codes, providers' callback tokens). Node's one-shot hash, with
// no Hash object per call (an API key is hashed on every request).
import { hash } from 'node:crypto';

export function sha256Hex(text: string): string {
  return hash('sha256', text, 'hex');
}
