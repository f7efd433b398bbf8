// Balances: derived from the ledger, one entry per asset the merchant has ever held in this environment.
import { Decimal, formatAmount, type SettlementAsset } from '../../shared/money.js';
import { ACCOUNTS, accountBalances } from '../ledger/index.js';
import type { MerchantScope } from '../../shared/scope.js';
import { Type, type Static } from 'typebox';
import type { Db } from '../../db/transaction.js';

export const BalanceEntryRecord = Type.Object(
  {
    asset: Type.String(),
    total: Type.String({ description: 'available + on_hold' }),
    available: Type.String({ description: 'Spendable now' }),
    on_hold: Type.String({
      description:
        'Pending settlements, frozen (disputed) settlements, funds reserved for requested refunds and funds held for payouts not yet paid',
    }),
  },
  { title: 'BalanceEntry' },
);
export type BalanceEntry = Static<typeof BalanceEntryRecord>;

export async function listBalances(db: Db, scope: MerchantScope): Promise<BalanceEntry[]> {
  const byAsset = await accountBalances(db, scope);
  const zero = new Decimal(0);
  return [...byAsset.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([asset, accounts]) => {
      const available = accounts.get(ACCOUNTS.available) ?? zero;
      // On hold: pending settlements, frozen (disputed) ones, funds set aside for requested refunds, and
      // funds held for payouts not yet paid.
      const onHold = [ACCOUNTS.pending, ACCOUNTS.frozen, ACCOUNTS.refundReserved, ACCOUNTS.payoutHeld].reduce(
        (sum, a) => sum.plus(accounts.get(a) ?? zero),
        zero,
      );
      const unit = asset as SettlementAsset;
      return {
        asset,
        total: formatAmount(available.plus(onHold), unit),
        available: formatAmount(available, unit),
        on_hold: formatAmount(onHold, unit),
      };
    });
}
