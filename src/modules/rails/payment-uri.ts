// What a wallet's QR code holds: a payment request in the form the network's wallets read, so that a scan
// fills in the token, the recipient and the exact amount, not only the address.
// - Base and Polygon: EIP-681, a call of the token contract's `transfer(address,uint256)`:
//   `ethereum:<token>@<chainId>/transfer?address=<recipient>&uint256=<amount in base units>`.
// - Solana: Solana Pay's transfer request, `solana:<recipient>?amount=<decimal>&spl-token=<mint>`.
// - TRON: the `tron:` form TRON wallets read, `tron:<recipient>?token=<contract>&amount=<decimal>`.
// The token contracts default to the canonical mainnet ones (the live on-chain rail may configure others).
import { Decimal } from '../../shared/money.js';
import { CANONICAL_TOKENS, CHAIN_IDS, STABLE_DECIMALS, type StableAsset } from '../../shared/chains.js';
import type { WalletNetwork } from './payment-details.js';

export { CANONICAL_TOKENS as TOKEN_CONTRACTS, CHAIN_IDS, type StableAsset } from '../../shared/chains.js';

/**
 * The payment request for `amount` (a decimal string with at most 6 decimals) of `asset` to `address` on
 * `network`; `token` and `chainId` default to the canonical mainnet ones (the live rail passes its configured ones).
 */
export function paymentUri(
  network: WalletNetwork,
  asset: StableAsset,
  address: string,
  amount: string,
  opts: { token?: string; chainId?: number } = {},
): string {
  const token = opts.token ?? CANONICAL_TOKENS[network][asset];
  const decimal = new Decimal(amount);
  switch (network) {
    case 'base':
    case 'polygon': {
      const units = decimal.mul(new Decimal(10).pow(STABLE_DECIMALS)).toFixed(0);
      return `ethereum:${token}@${opts.chainId ?? CHAIN_IDS[network]}/transfer?address=${address}&uint256=${units}`;
    }
    case 'solana':
      return `solana:${address}?amount=${decimal.toFixed()}&spl-token=${token}`;
    case 'tron':
      return `tron:${address}?token=${token}&amount=${decimal.toFixed()}`;
  }
}
