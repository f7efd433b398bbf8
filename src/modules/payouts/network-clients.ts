// The payout sender's network clients, built from each network's configuration when its payout key is set
// (the key revealed here only, handed to the client, and kept nowhere else): EVM networks through viem,
// TRON through TronGrid, Solana through JSON-RPC.
import type { ChainConfig } from '../../config-chains.js';
import type { ChainNetwork } from '../../shared/chains.js';
import { loadEvmPayoutClient, loadSolanaPayoutClient, loadTronPayoutClient, type PayoutNetworkClient } from '../rails/index.js';
import type { SenderNetwork } from './payout-sender.js';
import type { PayoutNetworks } from './payouts.service.js';

/** The client of a network whose payout key is set. */
async function clientOf(
  chain: ChainConfig,
  key: string,
  timeoutMs: number,
): Promise<{ client: PayoutNetworkClient; blockNumber?: () => Promise<number> } | null> {
  switch (chain.network) {
    case 'base':
    case 'polygon': {
      const client = new (await loadEvmPayoutClient())(chain, key, { timeoutMs });
      return { client, blockNumber: () => client.blockNumber() };
    }
    case 'tron':
      return { client: new (await loadTronPayoutClient())(chain, key, { timeoutMs }) };
    case 'solana':
      return { client: new (await loadSolanaPayoutClient())(chain, key, { timeoutMs }) };
  }
}

/** One sender network per configured network with a payout key and a client. */
export async function buildSenderNetworks(chains: readonly ChainConfig[], opts: { timeoutMs: number }): Promise<SenderNetwork[]> {
  const out: SenderNetwork[] = [];
  for (const chain of chains) {
    if (!chain.payout) continue;
    const built = await clientOf(chain, chain.payout.key.reveal(), opts.timeoutMs);
    if (!built) continue;
    out.push({
      network: chain.network,
      client: built.client,
      tokens: chain.tokens,
      confirmations: chain.confirmations,
      replaceAfterBlocks: chain.payout.replaceAfterBlocks,
      ...(built.blockNumber ? { blockNumber: built.blockNumber } : {}),
    });
  }
  return out;
}

/** What the payout service asks of the networks with a sender. */
export class SenderRegistry implements PayoutNetworks {
  private readonly byNetwork: ReadonlyMap<ChainNetwork, SenderNetwork>;

  constructor(networks: readonly SenderNetwork[]) {
    this.byNetwork = new Map(networks.map((n) => [n.network, n]));
  }

  has(network: ChainNetwork): boolean {
    return this.byNetwork.has(network);
  }

  isValidAddress(network: ChainNetwork, address: string): boolean {
    return this.byNetwork.get(network)?.client.isValidAddress(address) ?? false;
  }

  get(network: ChainNetwork): SenderNetwork | undefined {
    return this.byNetwork.get(network);
  }
}
