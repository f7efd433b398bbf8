// The live external-wallet rail: the checkout shows the configured address of the chosen network and an
// exact amount from the same allocation (unique index) as the sandbox's; the chain watchers see the
// transfer and report it (chain-watcher.ts). Only configured networks are offered. Refunds of wallet
// payments stay `requested` with the return address until the operator approves them; then, when payout
// senders are configured, the approved refund is an on-chain send of its amount to the return address on
// the network the payment came by, made by that network's payout sender and settled at its depth.
import type { Logger } from 'pino';
import type { Db } from '../../../db/transaction.js';
import type { MerchantClocks } from '../../../shared/clock.js';
import type { StableAsset } from '../../../shared/chains.js';
import { AppError } from '../../../shared/errors.js';
import { WALLET_NETWORKS, type WalletNetwork } from '../payment-details.js';
import type {
  PaymentRail,
  ProviderRefund,
  RefundResult,
  RefundToSend,
  StartPaymentRequest,
  StartPaymentResult,
} from '../../payment-intents/index.js';
import type { MerchantScope } from '../../../shared/scope.js';
import { paidNetworkOfIntent } from './chain.repo.js';
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

/** The payout senders, as the rail sends refunds through them (the payouts module implements it). */
export interface ChainRefundSender {
  /** Whether the network has a payout sender. */
  has(network: string): boolean;
  isValidAddress(network: string, address: string): boolean;
  /** Queues the send of a refund (once per refund); answers its reference (the send's id). */
  queueRefund(send: {
    refundId: string;
    scope: MerchantScope;
    network: string;
    asset: string;
    amount: string;
    address: string;
  }): Promise<string>;
  /** Where a queued send is: pending, succeeded (the transaction hash) or failed. */
  refundSendStatus(reference: string): Promise<ProviderRefund>;
}

export class ChainRail implements PaymentRail {
  readonly name = 'chain';
  readonly methods = ['external_wallet'] as const;
  /** Present only with payout senders: without them a refund stays `requested` for a send by hand. */
  readonly sendRefund?: (refund: RefundToSend) => Promise<ProviderRefund>;
  readonly refundStatus?: (scope: MerchantScope, reference: string) => Promise<ProviderRefund>;

  constructor(
    private readonly opts: {
      db: Db;
      clocks: MerchantClocks;
      networks: ReadonlyMap<WalletNetwork, ChainRailNetwork>;
      refunds?: ChainRefundSender;
    },
  ) {
    const sender = opts.refunds;
    if (!sender) return;
    this.sendRefund = async (refund) => {
      const network = await paidNetworkOfIntent(opts.db, refund.intent.id);
      if (!network || !sender.has(network)) {
        throw new AppError(
          'refund_rail_unavailable',
          `No payout sender on ${network ?? 'the network of this payment'}; the refund is asked about again later.`,
        );
      }
      if (!refund.returnAddress || !sender.isValidAddress(network, refund.returnAddress)) {
        return { state: 'failed', reason: `The return address is not a valid ${network.toUpperCase()} address.` };
      }
      const reference = await sender.queueRefund({
        refundId: refund.refundId,
        scope: refund.scope,
        network,
        asset: refund.intent.settlement_currency,
        amount: refund.amount.toFixed(),
        address: refund.returnAddress,
      });
      return { state: 'pending', reference };
    };
    this.refundStatus = (_scope, reference) => sender.refundSendStatus(reference);
  }

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
