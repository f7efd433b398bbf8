// Base58 (Bitcoin's alphabet) for the TRON and Solana peers, through @scure/base: decoding answers null for a
// string that is not base58, as the peers check what they receive.
import { base58 } from '@scure/base';

export const base58Encode = (bytes: Uint8Array): string => base58.encode(bytes);

export function base58Decode(s: string): Buffer | null {
  try {
    return Buffer.from(base58.decode(s));
  } catch {
    return null;
  }
}
