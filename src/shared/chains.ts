// The on-chain networks of external-wallet payments and what is fixed about each: the canonical mainnet
// stablecoin contracts (EVM, TRON) and mints (Solana), the EVM chain ids, the documented default confirmation
// depths (docs/api-reference.md, "Live on-chain payments").

export const CHAIN_NETWORKS = ['tron', 'solana', 'base', 'polygon'] as const;
export type ChainNetwork = (typeof CHAIN_NETWORKS)[number];

export type StableAsset = 'USDT' | 'USDC';

/** Blocks (slots on Solana) a transfer must be deep before it pays, unless COWRIE_CHAIN_<NETWORK>_CONFIRMATIONS says otherwise. */
export const DEFAULT_CONFIRMATIONS: Readonly<Record<ChainNetwork, number>> = { base: 20, polygon: 64, tron: 19, solana: 32 };

/** Canonical mainnet contracts (EVM, TRON) and mints (Solana) of the stablecoins. */
export const CANONICAL_TOKENS: Readonly<Record<ChainNetwork, Readonly<Record<StableAsset, string>>>> = {
  base: { USDC: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', USDT: '0xfde4C96c8593536E31F229EA8f37b2ADa2699bb2' },
  polygon: { USDC: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', USDT: '0xc2132D05D31c914a87C6611C10748AEb04B58e8F' },
  tron: { USDT: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', USDC: 'TEkxiTehnzSmSe2XqrBj4w32RUN966rdz8' },
  solana: { USDC: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', USDT: 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB' },
};

/** EIP-155 chain ids of the EVM networks on mainnet. */
export const CHAIN_IDS = { base: 8453, polygon: 137 } as const;

/** USDT and USDC have 6 decimals on every network here. */
export const STABLE_DECIMALS = 6;
