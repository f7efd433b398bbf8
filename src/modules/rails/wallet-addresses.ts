// The merchant's deposit address on each network. In the sandbox they are derived from the merchant, the
// environment and the chain family, so they are stable and look like real ones; Base and Polygon share one
// EVM address, as a real EVM key does, and only the network tells the two deposits apart.
import { createHash } from 'node:crypto';
import type { WalletNetwork } from './payment-details.js';

const B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

function base58(bytes: Buffer): string {
  let n = BigInt(`0x${bytes.toString('hex')}`);
  let out = '';
  while (n > 0n) {
    out = B58[Number(n % 58n)]! + out;
    n /= 58n;
  }
  return out;
}

export function sandboxDepositAddress(merchantId: string, environment: string, network: WalletNetwork): string {
  const family = network === 'base' || network === 'polygon' ? 'evm' : network;
  const hash = createHash('sha256').update(`cowrie-sandbox-address|${merchantId}|${environment}|${family}`).digest();
  switch (family) {
    case 'evm':
      return `0x${hash.subarray(0, 20).toString('hex')}`;
    case 'tron':
      return `T${base58(hash).slice(0, 33)}`;
    default:
      return base58(hash).padStart(44, '1').slice(0, 44);
  }
}
