// The sandbox simulator: a rail for every payment method that settles instantly with whatever outcome the
// tester asks for (`details.outcome`), reported through the same sink a real rail's callback uses.
import { PAYMENT_METHODS } from '../payment-intents/payment-methods.js';
import { PAYMENT_OUTCOMES, type PaymentOutcome } from '../payment-intents/payments.service.js';
import type { Decimal } from '../../shared/money.js';
import type { PaymentOutcomeSink, PaymentRail, RefundRequest, RefundResult, StartPaymentRequest, StartPaymentResult } from './rail.js';

export class SandboxRail implements PaymentRail {
  readonly name = 'sandbox';
  readonly methods = PAYMENT_METHODS;

  constructor(private readonly sink: PaymentOutcomeSink) {}

  async startPayment(request: StartPaymentRequest): Promise<StartPaymentResult> {
    if (request.scope.environment !== 'test') throw new Error('the sandbox rail only carries sandbox payments');
    const outcome = request.details['outcome'];
    if (typeof outcome !== 'string' || !(PAYMENT_OUTCOMES as readonly string[]).includes(outcome)) {
      throw new Error(`sandbox rail: unknown outcome ${String(outcome)}`);
    }
    const intent = await this.sink.report(request.scope, {
      intentId: request.intent.id,
      method: request.method,
      outcome: outcome as PaymentOutcome,
      amount: request.details['amount'] as Decimal | undefined,
      failureCode: typeof request.details['failure_code'] === 'string' ? request.details['failure_code'] : undefined,
    });
    return { state: 'completed', intent };
  }

  async refund(_request: RefundRequest): Promise<RefundResult> {
    return { state: 'succeeded' };
  }
}
