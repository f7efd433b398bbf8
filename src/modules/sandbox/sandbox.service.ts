// The sandbox test helpers, in one place for the API (sandbox.routes.ts) and the merchant console: the
// payment driver (an outcome through the sandbox rail, the same code path a real rail's report takes), the
// sandbox clock (moved forward, then the time-based jobs run at once for that merchant) and the trigger of
// sample events (trigger.service.ts).
import type { CommitWith, Db } from '../../db/transaction.js';
import { AppError } from '../../shared/errors.js';
import { requireAmount, type SettlementAsset } from '../../shared/money.js';
import type { MerchantClocks } from '../../shared/clock.js';
import type { MerchantScope } from '../../shared/scope.js';
import { defaultFailureFor, type IntentService, type PaymentMethod, type PaymentOutcome } from '../payment-intents/index.js';
import type { RailRegistry } from '../payment-intents/index.js';
import type { PaymentIntentRow } from '../../db/schema.js';
import type { EventType } from '../../shared/event-types.js';
import { triggerSampleEvent, type TriggeredEvent } from './trigger.service.js';

export interface SandboxServiceDeps {
  db: Db;
  clocks: MerchantClocks;
  intents: IntentService;
  rails: RailRegistry;
  /** Runs the time-based jobs (expiry, settlement maturing) for one merchant's environment at once. */
  runTimeJobs: (scope: MerchantScope) => Promise<void>;
}

export interface SimulateInput {
  outcome: PaymentOutcome;
  payment_method: PaymentMethod;
  /** Decimal text in the settlement asset. */
  amount?: string;
  failure_code?: string;
}

function sandboxOnly(scope: MerchantScope): void {
  if (scope.environment !== 'test') {
    throw new AppError('sandbox_only', 'This exists only in the sandbox; use a cwk_test_ key on the sandbox base URL.');
  }
}

export class SandboxService {
  constructor(private readonly deps: SandboxServiceDeps) {}

  /** Records a sample event of any type (the trigger), as a real one is recorded. */
  trigger(merchantId: string, type: EventType, commitWith?: CommitWith<TriggeredEvent>): Promise<TriggeredEvent> {
    return triggerSampleEvent(this.deps, merchantId, type, commitWith);
  }

  /** Drives a test payment to an outcome; answers the intent after it. */
  async simulate(
    scope: MerchantScope & { sandboxOffsetMs?: number },
    intentId: string,
    input: SimulateInput,
    commitWith?: CommitWith<PaymentIntentRow>,
  ): Promise<PaymentIntentRow> {
    sandboxOnly(scope);
    const intent = await this.deps.intents.getRow(scope, intentId);
    const amount =
      input.amount === undefined ? undefined : requireAmount(input.amount, intent.settlement_currency as SettlementAsset, 'amount');
    const rail = this.deps.rails.railFor('test', input.payment_method);
    if (!rail) throw new Error(`no sandbox rail for ${input.payment_method}`);
    const result = await rail.startPayment({
      scope,
      intent,
      method: input.payment_method,
      details: {
        outcome: input.outcome,
        amount,
        failure_code: input.failure_code ?? (input.outcome === 'attempt_failed' ? defaultFailureFor(input.payment_method) : undefined),
      },
      ...(commitWith ? { commitWith } : {}),
    });
    return result.intent;
  }

  /** Moves the merchant's sandbox time forward and runs its time-based jobs; answers the new offset (ms). */
  async advanceClock(scope: MerchantScope, seconds: number, commitWith?: CommitWith<number>): Promise<number> {
    sandboxOnly(scope);
    if (!Number.isInteger(seconds) || seconds < 1 || seconds > 400 * 86_400) {
      throw new AppError('parameter_invalid', 'Invalid seconds: a whole number from 1 to 34560000 (400 days).', { param: 'seconds' });
    }
    const offset = await this.deps.clocks.advanceSandbox(scope.merchantId, seconds, commitWith);
    await this.deps.runTimeJobs({ merchantId: scope.merchantId, environment: 'test' });
    return offset;
  }
}
