// The live external-wallet rail: the checkout shows the configured address of the chosen network and an
// exact amount from the same allocation (unique index) as the sandbox's; the chain watchers see the
// transfer and report it (chain-watcher.ts). Only configured networks are offered. Refunds of wallet
// payments are a new on-chain send the operator makes: they stay `requested` with the return address.
import type { Logger } from 'pino';
import type { Db } from '../../../db/transaction.js';
import type { MerchantClocks } from '../../../shared/clock.js';
import type { StableAsset } from '../../../shared/chains.js';
import { AppError } from '../../../shared/errors.js';
import { WALLET_NETWORKS, type WalletNetwork } from '../payment-details.js';
import type { PaymentRail, RefundResult, StartPaymentRequest, StartPaymentResult } from '../../payment-intents/index.js';
import { allocateWalletAmount } from '../sandbox-wallet.js';
import type { ChainSource } from './chain-source.js';

export interface ChainRailNetwork {
  address: string;
  tokens: Readonly<Record<StableAsset, string>>;
  /** EVM: the chain id for EIP-681 payment requests, as the node tells it (undefined when it cannot). */
  chainId?: () => Promise<number | undefined>;
}

/**
 * A network as the rail offers it, from its watcher's source: the address and tokens, and for EVM the
 * chain id that payment requests (EIP-681) name, asked of the node once, at the first wallet payment on
 * the network (a testnet or a local chain is not mainnet); mainnet's id is named when the node cannot tell.
 */
export function railNetworkOf(source: ChainSource, tokens: Readonly<Record<StableAsset, string>>, logger?: Logger): ChainRailNetwork {
  const ask = source.chainId?.bind(source);
  if (!ask) return { address: source.address, tokens };
  let chainId: Promise<number | undefined> | undefined;
  const askChainId = () =>
    (chainId ??= ask().catch((err: unknown) => {
      logger?.warn({ err, network: source.network }, 'could not read the chain id; payment requests name mainnet');
      chainId = undefined;
      return undefined;
    }));
  return { address: source.address, tokens, chainId: askChainId };
}

export class ChainRail implements PaymentRail {
  readonly name = 'chain';
  readonly methods = ['external_wallet'] as const;

  constructor(private readonly opts: { db: Db; clocks: MerchantClocks; networks: ReadonlyMap<WalletNetwork, ChainRailNetwork> }) {}

  /** The networks offered, in the checkout's order. */
  get networks(): WalletNetwork[] {
    return WALLET_NETWORKS.filter((n) => this.opts.networks.has(n));
  }

  async startPayment(request: StartPaymentRequest): Promise<StartPaymentResult> {
    if (request.scope.environment !== 'live')
      throw new AppError('payment_method_unavailable', 'The chain rail carries live payments only.');
    const wallet = await allocateWalletAmount(
      this.opts.db,
      request.scope,
      request.intent,
      request.details['network'],
      () => this.opts.clocks.base.nowMs(),
      (n) => this.opts.networks.get(n)?.address ?? null,
    );
    const net = this.opts.networks.get(wallet.network)!;
    const chainId = await net.chainId?.();
    return {
      state: 'pending',
      reference: `${request.intent.id}/${wallet.network}`,
      intent: request.intent,
      nextAction: {
        type: 'wallet_deposit',
        ...wallet,
        token: net.tokens[wallet.asset as StableAsset],
        ...(chainId === undefined ? {} : { chain_id: chainId }),
      },
    };
  }

  async refund(): Promise<RefundResult> {
    return { state: 'requested' };
  }
}
