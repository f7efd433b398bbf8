// What a wallet's QR code holds: a payment request in the form the network's wallets read, so that a scan
// fills in the token, the recipient and the exact amount, not only the address.
// - Base and Polygon: EIP-681, a call of the token contract's `transfer(address,uint256)`:
//   `ethereum:<token>@<chainId>/transfer?address=<recipient>&uint256=<amount in base units>`.
// - Solana: Solana Pay's transfer request, `solana:<recipient>?amount=<decimal>&spl-token=<mint>`.
// - TRON: the `tron:` form TRON wallets read, `tron:<recipient>?token=<contract>&amount=<decimal>`.
// The token contracts are the canonical mainnet ones (the live on-chain rail may configure others).
import { Decimal } from '../../shared/money.js';
import type { WalletNetwork } from './payment-details.js';

export type StableAsset = 'USDT' | 'USDC';

/** Canonical mainnet contracts (EVM, TRON) and mints (Solana) of the stablecoins, and their decimals. */
export const TOKEN_CONTRACTS: Record<WalletNetwork, Record<StableAsset, string>> = {
  base: { USDC: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', USDT: '0xfde4C96c8593536E31F229EA8f37b2ADa2699bb2' },
  polygon: { USDC: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', USDT: '0xc2132D05D31c914a87C6611C10748AEb04B58e8F' },
  tron: { USDT: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', USDC: 'TEkxiTehnzSmSe2XqrBj4w32RUN966rdz8' },
  solana: { USDC: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', USDT: 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB' },
};

/** EIP-155 chain ids of the EVM networks. */
export const CHAIN_IDS = { base: 8453, polygon: 137 } as const;

/** USDT and USDC have 6 decimals on every network here. */
export const STABLE_DECIMALS = 6;

/**
 * The payment request for `amount` (a decimal string with at most 6 decimals) of `asset` to `address` on
 * `network`.
 */
export function paymentUri(network: WalletNetwork, asset: StableAsset, address: string, amount: string): string {
  const token = TOKEN_CONTRACTS[network][asset];
  const decimal = new Decimal(amount);
  switch (network) {
    case 'base':
    case 'polygon': {
      const units = decimal.mul(new Decimal(10).pow(STABLE_DECIMALS)).toFixed(0);
      return `ethereum:${token}@${CHAIN_IDS[network]}/transfer?address=${address}&uint256=${units}`;
    }
    case 'solana':
      return `solana:${address}?amount=${decimal.toFixed()}&spl-token=${token}`;
    case 'tron':
      return `tron:${address}?token=${token}&amount=${decimal.toFixed()}`;
  }
}
