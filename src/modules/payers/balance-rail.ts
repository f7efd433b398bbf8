// The live service balance: a payment rail that pays an intent from a signed-in payer's balance, at once.
// The payer's PIN is checked first (five wrong in a row lock paying for 15 minutes); then, in one
// transaction, the payer's row is locked (two payments of one payer take turns, in any process, on either
// engine), the balance read, and either the intent is paid (the merchant's credit, the event and the
// webhook through the payments module, and the payer's debit, all committing together) or the attempt is
// recorded failed with `insufficient_funds`. A wrong PIN is a failed attempt `invalid_pin`. Either failure
// leaves the intent payable.
import type { PaymentIntentRow, RailPaymentRow, RailPaymentState } from '../../db/schema.js';
import { transaction, type Db, type Tx } from '../../db/transaction.js';
import type { MerchantClocks } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { Decimal } from '../../shared/money.js';
import type { MerchantScope } from '../../shared/scope.js';
import { PAYER_ASSETS, payerBalances, postPayerMovement, type PayerAsset } from '../ledger/index.js';
import {
  IntentMoveConflict,
  type PaymentRail,
  type RefundRequest,
  type RefundResult,
  type StartPaymentRequest,
  type StartPaymentResult,
} from '../payment-intents/index.js';
import type { PaymentService } from '../payments/index.js';
import { insertRailPayment } from '../rails/index.js';
import type { PayerAuth } from './payer-auth.service.js';
import { lockPayer } from './payers.service.js';

/** Thrown inside the payment's transaction to roll all of it back (the intent was paid meanwhile). */
class NotPayable extends Error {}

export class BalanceRail implements PaymentRail {
  readonly name = 'balance';
  readonly methods = ['service_balance'] as const;
  /** Offered only on intents settling in an asset payers hold. */
  readonly assets = PAYER_ASSETS;

  constructor(
    private readonly payments: PaymentService,
    private readonly deps: { db: Db; clocks: MerchantClocks; auth: PayerAuth },
  ) {}

  async startPayment(request: StartPaymentRequest): Promise<StartPaymentResult> {
    const { scope, intent } = request;
    const payerId = typeof request.details['payer'] === 'string' ? request.details['payer'] : null;
    if (payerId === null) throw new AppError('payer_sign_in_required', 'Sign in to your wallet to pay from your account balance.');
    const asset = intent.settlement_currency as PayerAsset;
    if (!(PAYER_ASSETS as readonly string[]).includes(asset)) {
      throw new AppError('payment_method_unavailable', `Account balances hold ${PAYER_ASSETS.join(' and ')} only.`, { param: 'method' });
    }
    const pin = typeof request.details['pin'] === 'string' ? request.details['pin'].trim() : '';
    const ip = typeof request.details['ip'] === 'string' ? request.details['ip'] : null;
    await this.refuseSuspended(payerId);
    const checked = await this.deps.auth.checkPin(payerId, pin, ip);
    if (!checked.ok && checked.locked) throw new AppError('payer_pin_locked', checked.message);
    let paid: PaymentIntentRow | AppError;
    try {
      paid = await transaction(this.deps.db, (tx) => this.payLocked(tx, scope, intent, payerId, asset, checked.ok));
    } catch (err) {
      if (err instanceof NotPayable || err instanceof IntentMoveConflict)
        throw new AppError('intent_not_payable', 'This payment can no longer be paid.');
      throw err;
    }
    // A refusal (a receiving cap, a full link, an expired intent) is committed with its declined attempt, then shown.
    if (paid instanceof AppError) throw paid;
    return { state: 'completed', intent: paid };
  }

  private async refuseSuspended(payerId: string): Promise<void> {
    const payer = await transaction(this.deps.db, (tx) => lockPayer(tx, payerId));
    if (!payer) throw new AppError('payer_sign_in_required', 'Sign in to your wallet to pay from your account balance.');
    if (payer.status === 'suspended') {
      throw new AppError('payer_suspended', 'This account is suspended: it cannot pay. Contact the service operator.');
    }
  }

  /** The payment in one transaction, the payer's row locked first (then the merchant's and the intent's). */
  private async payLocked(
    tx: Tx,
    scope: MerchantScope,
    intent: PaymentIntentRow,
    payerId: string,
    asset: PayerAsset,
    pinRight: boolean,
  ): Promise<PaymentIntentRow | AppError> {
    const payer = await lockPayer(tx, payerId);
    if (!payer || payer.environment !== scope.environment) throw new AppError('payer_sign_in_required', 'Sign in to your wallet again.');
    if (payer.status === 'suspended') throw new AppError('payer_suspended', 'This account is suspended: it cannot pay.');
    const due = new Decimal(intent.pay_amount);
    const balance = (await payerBalances(tx, payerId, scope.environment))[asset];
    const failure = !pinRight ? 'invalid_pin' : balance.lt(due) ? 'insufficient_funds' : null;
    const now = await this.deps.clocks.nowMs(scope);
    const railPaymentId = newId('rail_payment');
    const applied = await this.payments.applyIn(tx, scope, {
      intentId: intent.id,
      method: 'service_balance',
      ...(failure ? { outcome: 'attempt_failed' as const, failureCode: failure } : { outcome: 'success' as const, amount: due }),
      ...(failure ? {} : { providerReference: railPaymentId }),
    });
    if (applied.ok && !failure && applied.outcome !== 'success') throw new NotPayable();
    const state: RailPaymentState = !applied.ok ? 'declined' : failure ? 'failed' : 'succeeded';
    const rail: RailPaymentRow = {
      id: railPaymentId,
      merchant_id: scope.merchantId,
      environment: scope.environment,
      payment_intent_id: intent.id,
      method: 'service_balance',
      state,
      details: JSON.stringify({ payer: payerId }),
      failure_code: applied.ok ? failure : applied.error.code,
      resolve_at: null,
      external_id: null,
      callback_token_hash: null,
      provider_reference: failure ? null : railPaymentId,
      queries: 0,
      created_at: now,
      updated_at: now,
    };
    await insertRailPayment(tx, rail);
    if (!applied.ok) return applied.error;
    if (!failure) {
      await postPayerMovement(tx, {
        payerId,
        environment: scope.environment,
        asset,
        kind: 'payment',
        amount: due.neg(),
        at: now,
        paymentIntentId: intent.id,
        merchantId: scope.merchantId,
      });
    }
    return applied.row;
  }

  /** Balance payments are refunded by the merchant's owner with the PIN in the console, never through the API. */
  async refund(_request: RefundRequest): Promise<RefundResult> {
    return { state: 'requested' };
  }
}
