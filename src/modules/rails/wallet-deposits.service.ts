// The on-chain deposits that reached a merchant's addresses, credited to an intent or kept as unmatched
// (a wrong amount, asset or network, or a payment that was refused).
import { Type, type Static } from 'typebox';
import { readPage, type Page } from '../../db/pagination.js';
import type { WalletDepositRow } from '../../db/schema.js';
import type { Db } from '../../db/transaction.js';
import { isoTime } from '../../shared/clock.js';
import { DateTime, Nullable, StringEnum } from '../../shared/schema.js';
import type { MerchantScope } from '../../shared/scope.js';
import * as repo from './wallet.repo.js';

export const WalletDepositRecord = Type.Object(
  {
    id: Type.String({ description: 'Identifier, prefix `wd_`' }),
    object: Type.Literal('wallet_deposit'),
    status: StringEnum(['credited', 'unmatched'] as const),
    reason: Nullable(Type.String(), {
      description:
        'Why an unmatched deposit was not credited (no_matching_payment, MERCHANT_LIMIT_EXCEEDED, payment_link_completed or intent_not_payable); for a credited one, duplicate_payment when it paid an intent that was already paid (credited to the balance), else null',
    }),
    network: Type.String(),
    asset: Type.String(),
    address: Type.String(),
    amount: Type.String(),
    tx_hash: Type.String(),
    sender: Nullable(Type.String(), { description: 'The address it came from on chain (null for simulated sandbox deposits)' }),
    payment_intent: Nullable(Type.String(), { description: 'The intent whose exact amount it matched, if any' }),
    created_at: DateTime(),
    livemode: Type.Boolean(),
  },
  { title: 'WalletDeposit' },
);
export type WalletDeposit = Static<typeof WalletDepositRecord>;

export function walletDepositView(r: WalletDepositRow): WalletDeposit {
  return {
    id: r.id,
    object: 'wallet_deposit',
    status: r.status,
    reason: r.reason,
    network: r.network,
    asset: r.asset,
    address: r.address,
    amount: r.amount,
    tx_hash: r.tx_hash,
    sender: r.sender,
    payment_intent: r.payment_intent_id,
    created_at: isoTime(r.created_at),
    livemode: r.environment === 'live',
  };
}

export async function listWalletDeposits(
  db: Db,
  scope: MerchantScope,
  opts: { limit: number; startingAfter?: string; status?: WalletDepositRow['status'] },
): Promise<Page<WalletDeposit>> {
  return readPage(
    opts,
    (id) => repo.findDeposit(db, scope, id),
    (cursor, limit) => repo.listDeposits(db, scope, { status: opts.status }, cursor, limit),
    walletDepositView,
  );
}
