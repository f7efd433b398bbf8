// The operator's view of on-chain deposits (`cowrie deposits list`) and the one way to credit an unmatched
// deposit to an intent by hand (`cowrie deposits claim TX_HASH --intent pi_…`): only a confirmed,
// unmatched deposit, only to a live intent that can still be paid, and exactly once, however many
// operators run the command at the same moment (a conditional update in the payment's transaction).
import type { ChainTransferOutcome, ChainTransferRow } from '../../../db/schema.js';
import { transaction, type Db } from '../../../db/transaction.js';
import type { Clock } from '../../../shared/clock.js';
import { isoTime } from '../../../shared/clock.js';
import { AppError, OperatorError } from '../../../shared/errors.js';
import { newId } from '../../../shared/ids.js';
import { Decimal } from '../../../shared/money.js';
import { findIntentById, type PaymentOutcome } from '../../payment-intents/index.js';
import type { PaymentService } from '../../payments/index.js';
import * as walletRepo from '../wallet.repo.js';
import * as repo from './chain.repo.js';

export interface ChainDepositView {
  id: string;
  object: 'chain_deposit';
  network: string;
  asset: string;
  amount: string;
  address: string;
  sender: string;
  tx_hash: string;
  event_index: string;
  block_number: number | null;
  /** pending (waiting for its depth), confirmed, or removed by a reorganisation. */
  state: ChainTransferRow['state'];
  /** What a confirmed deposit came to: credited, duplicate, unmatched or claimed. */
  outcome: ChainTransferOutcome | null;
  reason: string | null;
  merchant: string | null;
  payment_intent: string | null;
  /** The payer's top-up (`ptu_…`) whose exact amount it was, credited to the payer's balance or not. */
  payer_topup: string | null;
  first_seen_at: string;
  confirmed_at: string | null;
}

export function chainDepositView(r: ChainTransferRow): ChainDepositView {
  return {
    id: r.id,
    object: 'chain_deposit',
    network: r.network,
    asset: r.asset,
    amount: r.amount,
    address: r.address,
    sender: r.sender,
    tx_hash: r.tx_hash,
    event_index: r.event_index,
    block_number: r.block_number === null ? null : Number(r.block_number),
    state: r.state,
    outcome: r.outcome,
    reason: r.reason,
    merchant: r.merchant_id,
    payment_intent: r.payment_intent_id,
    payer_topup: r.payer_topup_id,
    first_seen_at: isoTime(r.first_seen_at),
    confirmed_at: r.confirmed_at === null ? null : isoTime(r.confirmed_at),
  };
}

export class ChainDeposits {
  constructor(private readonly deps: { db: Db; payments: PaymentService; clock: Clock }) {}

  async list(filter: { network?: string; outcome?: ChainTransferOutcome; state?: ChainTransferRow['state'] }, limit: number) {
    return (await repo.listTransfers(this.deps.db, filter, limit)).map(chainDepositView);
  }

  /** Credits a confirmed unmatched deposit to a live intent that can still be paid; answers the deposit after. */
  async claim(txHash: string, intentId: string, opts: { eventIndex?: string } = {}): Promise<ChainDepositView> {
    const { db } = this.deps;
    let rows = await repo.findByTxHash(db, txHash);
    if (opts.eventIndex !== undefined) rows = rows.filter((r) => r.event_index === opts.eventIndex);
    if (rows.length === 0)
      throw new OperatorError(`No deposit with transaction hash ${txHash} has been seen on a watched network.`, 'resource_missing');
    const open = rows.filter((r) => r.state === 'confirmed' && r.outcome === 'unmatched');
    if (open.length === 0) {
      const r = rows[0]!;
      if (r.state === 'pending')
        throw new OperatorError(`Deposit ${txHash} is not confirmed yet; claim it once it is.`, 'deposit_not_confirmed');
      if (r.state === 'removed')
        throw new OperatorError(`Deposit ${txHash} was removed from the chain by a reorganisation.`, 'deposit_removed');
      throw new OperatorError(
        `Deposit ${txHash} was already ${r.outcome === 'claimed' ? 'claimed for' : 'credited to'} ${r.payment_intent_id ?? 'a payment'}.`,
        'deposit_already_credited',
      );
    }
    if (open.length > 1) {
      throw new OperatorError(
        `Transaction ${txHash} holds ${open.length} unmatched transfers; choose one with --index (${open.map((r) => r.event_index).join(', ')}).`,
        'parameter_invalid',
      );
    }
    const row = open[0]!;
    const intent = await findIntentById(db, intentId);
    if (!intent) throw new AppError('resource_missing', `No such payment intent: '${intentId}'`, { param: 'intent' });
    if (intent.environment !== 'live') {
      throw new AppError('intent_not_payable', 'An on-chain deposit can only be credited to a live payment intent.', { param: 'intent' });
    }
    if (intent.settlement_currency !== row.asset) {
      throw new AppError(
        'intent_not_payable',
        `Payment intent ${intent.id} settles in ${intent.settlement_currency}; this deposit is ${row.amount} ${row.asset}.`,
        { param: 'intent' },
      );
    }
    const amount = new Decimal(row.amount);
    const due = new Decimal(intent.pay_amount).minus(intent.amount_received);
    const outcome: PaymentOutcome = amount.eq(due) ? 'success' : amount.lt(due) ? 'underpaid' : 'overpaid';
    const now = this.deps.clock.nowMs();
    const depositId = row.deposit_id !== null && row.merchant_id === intent.merchant_id ? row.deposit_id : newId('wallet_deposit');
    await transaction(db, async (tx) => {
      const applied = await this.deps.payments.applyIn(
        tx,
        { merchantId: intent.merchant_id, environment: 'live' },
        { intentId: intent.id, method: 'external_wallet', outcome, amount, providerReference: row.tx_hash },
      );
      // Anything but a payment of an intent that could still take it changes nothing (all of it rolls back).
      if (!applied.ok) throw applied.error;
      if (applied.outcome === 'duplicate') throw new AppError('intent_not_payable', `Payment intent ${intent.id} is already paid.`);
      if (!(await repo.markClaimed(tx, row.id, { merchantId: intent.merchant_id, intentId: intent.id, depositId }, now))) {
        throw new OperatorError(`Deposit ${txHash} was claimed by someone else at the same moment.`, 'deposit_already_credited');
      }
      if (depositId === row.deposit_id) {
        await walletRepo.creditDeposit(tx, depositId, intent.id);
      } else {
        await walletRepo.insertDeposit(tx, {
          id: depositId,
          merchant_id: intent.merchant_id,
          environment: 'live',
          network: row.network,
          asset: row.asset,
          address: row.address,
          amount: row.amount,
          tx_hash: row.tx_hash,
          sender: row.sender,
          status: 'credited',
          reason: null,
          payment_intent_id: intent.id,
          created_at: now,
        });
      }
    });
    return chainDepositView((await repo.findById(db, row.id))!);
  }
}
