// A payer takes money out of the service balance: a withdrawal is a payout (purpose `payer_withdrawal`) sent
// by the network's payout sender with the same states, approval threshold, operator commands and
// exactly-once rules as a merchant's payout (src/modules/payouts/). Refused, with nothing held: a suspended
// payer, a request the payout rules refuse (amount, network, address, a network without a sender), a wrong
// PIN (counted toward the lockout) or a locked one, and more than the balance. The balance is read and the
// amount held (payer_balance -> payer_payout_held) under the payer's row lock, in the transaction that
// records the payout, so that withdrawals and payments of one payer can never together overdraw it. Each
// rendering of the form carries a one-time key: the same form sent again (a double click, a resend)
// answers the withdrawal it already made, under the same lock, and holds nothing more.
import { randomBytes } from 'node:crypto';
import { transaction, type Db } from '../../db/transaction.js';
import { AppError } from '../../shared/errors.js';
import { formatAmount } from '../../shared/money.js';
import type { Environment } from '../../shared/scope.js';
import { payerBalances } from '../ledger/index.js';
import { payoutView, type PayoutService } from '../payouts/index.js';
import type { PayerAuth, PayerIdentity } from './payer-auth.service.js';
import { lockPayer, requirePayerAsset } from './payers.service.js';

export interface WithdrawalRequest {
  amount: string;
  asset: string;
  network: string;
  address: string;
  pin: string;
  /** The form's one-time key (newRequestKey). */
  requestKey: string;
}

const REQUEST_KEY = /^[A-Za-z0-9_-]{22}$/;

/** A withdrawal form's one-time key, made each time the form is drawn. */
export function newRequestKey(): string {
  return randomBytes(16).toString('base64url');
}

type Payouts = Pick<PayoutService, 'checkRequest' | 'recordPayerWithdrawal' | 'payerWithdrawals' | 'payerWithdrawalOfRequest'>;

export class PayerWithdrawals {
  constructor(private readonly deps: { db: Db; auth: PayerAuth; payouts: Payouts }) {}

  /** Checks and records a withdrawal; answers it as the payout record. */
  async request(payer: PayerIdentity, input: WithdrawalRequest, ip: string | null) {
    const { db, auth, payouts } = this.deps;
    const suspended = () => new AppError('payer_suspended', 'This account is suspended: it cannot withdraw. Contact the service operator.');
    if ((await transaction(db, (tx) => lockPayer(tx, payer.id)))?.status !== 'active') throw suspended();
    if (!REQUEST_KEY.test(input.requestKey)) {
      throw new AppError('parameter_invalid', 'This form is out of date: reload the page and ask again.', { param: 'request_key' });
    }
    const asset = requirePayerAsset(input.asset);
    const request = { amount: input.amount.trim(), asset, network: input.network, address: input.address.trim() };
    const { network, amount } = payouts.checkRequest(payer.environment, request);
    const pin = await auth.checkPin(payer.id, input.pin.trim(), ip);
    if (!pin.ok)
      throw pin.locked ? new AppError('payer_pin_locked', pin.message) : new AppError('parameter_invalid', pin.message, { param: 'pin' });
    const row = await transaction(db, async (tx) => {
      const locked = await lockPayer(tx, payer.id);
      if (!locked || locked.environment !== payer.environment || locked.status !== 'active') throw suspended();
      const made = await payouts.payerWithdrawalOfRequest(tx, payer.id, input.requestKey);
      if (made) return made;
      const balance = (await payerBalances(tx, payer.id, payer.environment))[asset];
      if (amount.gt(balance)) {
        throw new AppError(
          'insufficient_balance',
          `The withdrawal of ${formatAmount(amount, asset)} ${asset} is more than your balance of ${formatAmount(balance, asset)} ${asset}.`,
          { param: 'amount' },
        );
      }
      const withdrawal = {
        payerId: payer.id,
        environment: payer.environment,
        amount,
        asset,
        network,
        address: request.address,
        requestKey: input.requestKey,
      };
      return payouts.recordPayerWithdrawal(tx, withdrawal, { actor: payer.email, ip });
    });
    return payoutView(row);
  }

  /** The payer's withdrawals, newest first, as payout records. */
  async list(payerId: string, environment: Environment) {
    return (await this.deps.payouts.payerWithdrawals(payerId, environment)).map(payoutView);
  }
}
