// Payer accounts as the operator and the wallet page see them: the list, one payer with balances and
// movements, suspending and unsuspending, and the operator's ledger adjustment (audited). A debit (an
// adjustment down, a payment) holds the payer's row locked while it reads the balance and writes the
// movement, so that no two debits of one payer can together take the balance below zero, on either engine
// and across processes.
import type { PayerRow, PayerStatus } from '../../db/schema.js';
import { transaction, type Db, type Tx } from '../../db/transaction.js';
import type { Clock } from '../../shared/clock.js';
import { AppError, OperatorError } from '../../shared/errors.js';
import { formatAmount, Decimal } from '../../shared/money.js';
import type { Environment } from '../../shared/scope.js';
import { PAYER_ASSETS, payerBalances, payerMovements, postPayerMovement, type PayerAsset } from '../ledger/index.js';
import type { PayerAuth } from './payer-auth.service.js';
import * as repo from './payers.repo.js';

export function payerView(row: PayerRow, balances?: Record<PayerAsset, Decimal>) {
  return {
    id: row.id,
    object: 'payer' as const,
    email: row.email,
    status: row.status,
    livemode: row.environment === 'live',
    totp: row.totp_secret !== null,
    created_at: new Date(Number(row.created_at)).toISOString(),
    ...(balances ? { balances: PAYER_ASSETS.map((asset) => ({ asset, amount: formatAmount(balances[asset], asset) })) } : {}),
  };
}

export function movementView(m: Awaited<ReturnType<typeof payerMovements>>[number]) {
  return {
    id: m.id,
    kind: m.kind,
    asset: m.asset,
    amount: formatAmount(m.amount, m.asset),
    payment_intent: m.payment_intent,
    refund: m.refund,
    reason: m.reason,
    created_at: new Date(m.created_at).toISOString(),
  };
}

/** The payer's row locked for a debit, or null when there is no such payer. */
export function lockPayer(tx: Tx, payerId: string): Promise<PayerRow | undefined> {
  return repo.lockPayerRow(tx, payerId);
}

export function requirePayerAsset(text: string): PayerAsset {
  const asset = text.toUpperCase();
  if (!(PAYER_ASSETS as readonly string[]).includes(asset)) {
    throw new AppError('parameter_invalid', `Invalid asset: payers hold ${PAYER_ASSETS.join(' and ')}.`, { param: 'asset' });
  }
  return asset as PayerAsset;
}

export class PayerAccounts {
  constructor(private readonly deps: { db: Db; clock: Clock; auth: PayerAuth }) {}

  private async require(id: string): Promise<PayerRow> {
    const row = /^pyr_[0-9A-Za-z]{1,64}$/.test(id) ? await repo.findPayer(this.deps.db, id) : undefined;
    if (!row) throw new OperatorError(`No such payer: '${id.slice(0, 80)}'`, 'resource_missing');
    return row;
  }

  async list(opts: { environment?: Environment; status?: PayerStatus; limit: number }) {
    const rows = await repo.listPayers(this.deps.db, opts);
    return Promise.all(rows.map(async (r) => payerView(r, await payerBalances(this.deps.db, r.id, r.environment))));
  }

  async show(id: string) {
    const row = await this.require(id);
    const balances = await payerBalances(this.deps.db, row.id, row.environment);
    const movements = await payerMovements(this.deps.db, row.id, row.environment, 100);
    return { ...payerView(row, balances), movements: movements.map(movementView) };
  }

  /** What the wallet page shows: the balance of each asset and the latest movements. */
  async wallet(payerId: string, environment: Environment) {
    const balances = await payerBalances(this.deps.db, payerId, environment);
    const movements = await payerMovements(this.deps.db, payerId, environment, 200);
    return { balances, movements };
  }

  /** Suspends or reinstates a payer (the operator); a suspended payer cannot pay or withdraw. */
  async setStatus(id: string, status: PayerStatus) {
    const row = await this.require(id);
    if (row.status === status) throw new OperatorError(`Payer ${id} is already ${status}.`, 'payer_status_unchanged');
    await repo.setStatus(this.deps.db, id, status, this.deps.clock.nowMs());
    await this.deps.auth.audit(id, 'operator', status === 'suspended' ? 'payer.suspended' : 'payer.unsuspended', null, null);
    return this.show(id);
  }

  /**
   * The operator's ledger adjustment: a signed amount credited to (or, negative, debited from) the payer's
   * balance, with its reason, in the audit trail. A debit that would take the balance below zero is refused.
   */
  async adjust(id: string, input: { amount: string; asset: string; reason: string }) {
    const asset = requirePayerAsset(input.asset);
    if (!/^-?[0-9]{1,15}(\.[0-9]{1,6})?$/.test(input.amount)) {
      throw new AppError('parameter_invalid', 'Invalid amount: a signed decimal with at most 6 decimals, e.g. 25.5 or -3.', {
        param: 'amount',
      });
    }
    const amount = new Decimal(input.amount);
    if (amount.isZero()) throw new AppError('parameter_invalid', 'Invalid amount: it must not be zero.', { param: 'amount' });
    const reason = input.reason.trim();
    if (reason.length === 0 || reason.length > 500) {
      throw new AppError('parameter_invalid', 'Give a reason of 1 to 500 characters.', { param: 'reason' });
    }
    await this.require(id);
    const now = this.deps.clock.nowMs();
    const movement = await transaction(this.deps.db, async (tx) => {
      const payer = (await lockPayer(tx, id))!;
      const balance = (await payerBalances(tx, payer.id, payer.environment))[asset];
      if (balance.plus(amount).isNegative()) {
        throw new OperatorError(
          `Payer ${id} holds ${formatAmount(balance, asset)} ${asset}; a debit of ${formatAmount(amount.neg(), asset)} would take it below zero.`,
          'insufficient_balance',
        );
      }
      return postPayerMovement(tx, {
        payerId: payer.id,
        environment: payer.environment,
        asset,
        kind: 'adjustment',
        amount,
        at: now,
        reason,
      });
    });
    await this.deps.auth.audit(id, 'operator', 'payer.adjusted', { movement, amount: formatAmount(amount, asset), asset, reason }, null);
    return { movement, payer: await this.show(id) };
  }
}
