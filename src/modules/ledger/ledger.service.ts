// The double-entry ledger. Every movement of value is one set of legs, written in the caller's
// transaction (the same one as the state change that caused it), whose amounts sum to zero in their
// asset. Balances are never stored: they are sums of these legs.
//
// Accounts, per merchant, environment and asset (signed amounts; a merchant account holding money is
// positive, `world` is the outside that money comes from and goes back to):
//   world                     payers and payees outside the service
//   merchant_pending          settled, not yet spendable (new merchants' pending window)
//   merchant_available        spendable
//   merchant_frozen           frozen by a dispute
//   merchant_refund_reserved  taken aside for a refund that is requested and not yet done
//   merchant_payout_held      held for a payout from its request until it is paid (to world) or released
import type { Q } from '../../db/transaction.js';
import { newId } from '../../shared/ids.js';
import { Decimal, formatAmount, type SettlementAsset } from '../../shared/money.js';
import type { Environment, MerchantScope } from '../../shared/scope.js';
import * as repo from './ledger.repo.js';

export const ACCOUNTS = {
  world: 'world',
  pending: 'merchant_pending',
  available: 'merchant_available',
  frozen: 'merchant_frozen',
  refundReserved: 'merchant_refund_reserved',
  payoutHeld: 'merchant_payout_held',
} as const;
export type Account = (typeof ACCOUNTS)[keyof typeof ACCOUNTS];

/** What caused a movement; kept on every leg for audit and reports. */
export type MovementKind =
  | 'payment'
  | 'overpayment_surplus'
  | 'duplicate_payment'
  | 'settlement_matured'
  | 'settlement_released_for_refund'
  | 'dispute_freeze'
  | 'dispute_won'
  | 'dispute_lost'
  | 'refund_reserve'
  | 'refund'
  | 'refund_reversal'
  | 'payout_hold'
  | 'payout_release'
  | 'payout_sent';

export interface Movement {
  merchantId: string;
  environment: Environment;
  asset: SettlementAsset;
  kind: MovementKind;
  legs: ReadonlyArray<{ account: Account; amount: Decimal }>;
  at: number;
  paymentIntentId?: string | null;
  settlementId?: string | null;
  refundId?: string | null;
  payoutId?: string | null;
}

export class UnbalancedMovement extends Error {
  constructor(kind: string, sum: Decimal) {
    super(`ledger movement ${kind} does not balance (sum ${sum.toFixed()})`);
    this.name = 'UnbalancedMovement';
  }
}

/** Writes one balanced movement. Refuses (throws, writing nothing) a set of legs that does not sum to zero. */
export async function postMovement(trx: Q, m: Movement): Promise<string> {
  const sum = m.legs.reduce((acc, l) => acc.plus(l.amount), new Decimal(0));
  if (!sum.isZero() || m.legs.length < 2) throw new UnbalancedMovement(m.kind, sum);
  const movementId = newId('ledger_movement');
  await repo.insertLegs(
    trx,
    m.legs.map((l) => ({
      movement_id: movementId,
      merchant_id: m.merchantId,
      environment: m.environment,
      asset: m.asset,
      account: l.account,
      amount: formatAmount(l.amount, m.asset),
      kind: m.kind,
      payment_intent_id: m.paymentIntentId ?? null,
      settlement_id: m.settlementId ?? null,
      refund_id: m.refundId ?? null,
      payout_id: m.payoutId ?? null,
      created_at: m.at,
    })),
  );
  return movementId;
}

/** Moves `amount` from one account to another: the commonest movement. */
export function transfer(trx: Q, base: Omit<Movement, 'legs'>, from: Account, to: Account, amount: Decimal): Promise<string> {
  return postMovement(trx, {
    ...base,
    legs: [
      { account: from, amount: amount.neg() },
      { account: to, amount },
    ],
  });
}

/** Every account's balance of a merchant's environment, by asset (only assets it has ever held). */
export async function accountBalances(db: Q, scope: MerchantScope): Promise<Map<string, Map<Account, Decimal>>> {
  // Summed in decimal.js on both engines: SQLite stores the amounts as text and would sum them as floats.
  const rows = await repo.legsOutsideWorld(db, scope, ACCOUNTS.world);
  const out = new Map<string, Map<Account, Decimal>>();
  for (const r of rows) {
    let byAccount = out.get(r.asset);
    if (!byAccount) out.set(r.asset, (byAccount = new Map()));
    const account = r.account as Account;
    byAccount.set(account, (byAccount.get(account) ?? new Decimal(0)).plus(r.amount));
  }
  return out;
}
