// A stand-in for the live payment rails that land with the live-rail issues (Daraja, chains): it carries
// every method in the live environment so that live intents can be created (an intent whose currency no
// rail carries is refused at creation), takes no payment itself (tests pay live intents through the
// payment service, as a rail's callback would), and leaves refunds `requested` for the operator's review
// as a provider rail does.
import { AppError } from '../../src/shared/errors.js';
import { PAYMENT_METHODS } from '../../src/modules/payment-intents/index.js';
import type { PaymentMethod } from '../../src/modules/payment-intents/index.js';
import type { PaymentRail, RefundResult, StartPaymentResult } from '../../src/modules/payment-intents/index.js';

export class LiveStandInRail implements PaymentRail {
  readonly name = 'live-stand-in';
  constructor(readonly methods: readonly PaymentMethod[] = PAYMENT_METHODS) {}

  async startPayment(): Promise<StartPaymentResult> {
    throw new AppError('payment_method_unavailable', 'The test stand-in for live rails takes no payment.', { param: 'method' });
  }

  async refund(): Promise<RefundResult> {
    return { state: 'requested' };
  }
}
