// The payout as the API shows it, and what is fixed about its fields.
import { Type, type Static } from 'typebox';
import type { PayoutRow } from '../../db/schema.js';
import { isoTime } from '../../shared/clock.js';
import { CHAIN_NETWORKS, type ChainNetwork } from '../../shared/chains.js';
import { DateTime, Nullable, StringEnum } from '../../shared/schema.js';

export const PAYOUT_STATUSES = ['requested', 'sent', 'paid', 'failed', 'cancelled'] as const;
export const PAYOUT_ASSETS = ['USDT', 'USDC'] as const;
/** The API spells networks in capitals (`BASE`); the rest of the server in lower case. */
export const PAYOUT_NETWORKS = CHAIN_NETWORKS.map((n) => n.toUpperCase() as Uppercase<ChainNetwork>);

/** The form of a receiving address on each network (the sender's own check follows for live payouts). */
export const ADDRESS_PATTERNS: Readonly<Record<ChainNetwork, RegExp>> = {
  base: /^0x[0-9a-fA-F]{40}$/,
  polygon: /^0x[0-9a-fA-F]{40}$/,
  tron: /^T[1-9A-HJ-NP-Za-km-z]{33}$/,
  solana: /^[1-9A-HJ-NP-Za-km-z]{32,44}$/,
};

export const payoutProperties = {
  id: Type.String({ description: 'Identifier, prefix `po_`' }),
  object: Type.Literal('payout'),
  amount: Type.String({
    description: 'Exactly what the address receives and what leaves the available balance (the hot wallet pays the fee)',
  }),
  asset: StringEnum(PAYOUT_ASSETS),
  network: StringEnum(PAYOUT_NETWORKS),
  address: Type.String(),
  status: StringEnum(PAYOUT_STATUSES, {
    description:
      '`requested` (held from `available`; waiting for approval or the sender), `sent` (broadcast), `paid` (at the confirmation depth), `failed` (released), `cancelled` (released)',
  }),
  tx_hash: Nullable(Type.String(), { description: 'The transaction hash once sent (simulated in the sandbox)' }),
  failure_reason: Nullable(Type.String()),
  created_at: DateTime(),
  sent_at: Nullable(DateTime()),
  paid_at: Nullable(DateTime()),
  livemode: Type.Boolean(),
};

export const PayoutRecord = Type.Object(payoutProperties, { title: 'Payout' });
export type Payout = Static<typeof PayoutRecord>;

const time = (ms: number | null) => (ms === null ? null : isoTime(ms));

export function payoutView(row: PayoutRow): Payout {
  return {
    id: row.id,
    object: 'payout',
    amount: row.amount,
    asset: row.asset as Payout['asset'],
    network: row.network.toUpperCase() as Payout['network'],
    address: row.address,
    status: row.status,
    tx_hash: row.tx_hash,
    failure_reason: row.failure_reason,
    created_at: isoTime(row.created_at),
    sent_at: time(row.sent_at),
    paid_at: time(row.paid_at),
    livemode: row.environment === 'live',
  };
}
