// Refunds of live M-Pesa payments, sent for real: an approved refund is a Daraja reversal (`POST
// /mpesa/reversal/v1/request`) of the receipt that paid the intent, for the shillings paid, by the initiator
// of COWRIE_MPESA_INITIATOR_NAME and COWRIE_MPESA_SECURITY_CREDENTIAL, its result posted to an unguessable
// per-refund URL under the callback origin. The reversal is written (`sending`) before Daraja is called, so a
// crash never sends a second one: a reversal whose acknowledgement was lost is not sent again, it waits for
// its result callback. Only an answer in which Daraja refused to take it (`unsent`: an HTTP error, or no
// connection at all) is sent again. Daraja's Transaction Status query answers through a callback too and
// needs the reversal's own ids, so it is not used: a pending reversal is settled by its result callback
// (ResultCode 0 succeeded, anything else failed with ResultDesc; a queue time-out failed).
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { MpesaReversalRow } from '../../../db/schema.js';
import type { Db } from '../../../db/transaction.js';
import type { MerchantClocks } from '../../../shared/clock.js';
import { sha256Hex } from '../../../shared/sha256.js';
import type { ProviderRefund, RefundToSend } from '../../payment-intents/index.js';
import type { RefundDecisions } from '../../refunds/index.js';
import * as railRepo from '../rail-payments.repo.js';
import { DarajaError, parseReversalResult, type ReversalRequest, type ReversalResult } from './daraja-client.js';
import * as repo from './mpesa-reversals.repo.js';

export interface ReversalApi {
  reversal(req: ReversalRequest): Promise<{ conversationId: string; originatorConversationId: string }>;
}

export interface MpesaReversalsOptions {
  db: Db;
  clocks: MerchantClocks;
  client: ReversalApi;
  /** Public origin Daraja posts results to. */
  callbackOrigin: string;
  initiator: { name: string; securityCredential: string };
  logger?: Logger;
}

export type ReversalCallbackAnswer =
  { status: 200; body: { ResultCode: 0; ResultDesc: 'Accepted' } } | { status: 400 | 404; body: { ResultCode: 1; ResultDesc: string } };

const ACCEPTED = { status: 200, body: { ResultCode: 0, ResultDesc: 'Accepted' } } as const;
const FINAL: readonly MpesaReversalRow['state'][] = ['succeeded', 'failed'];
const OPEN: readonly MpesaReversalRow['state'][] = ['sending', 'unsent', 'accepted'];

export class MpesaReversals {
  private refunds: Pick<RefundDecisions, 'hint'> | null = null;

  constructor(private readonly opts: MpesaReversalsOptions) {}

  /** Where results settle refunds (the refund decisions, built after the rails). */
  refundsTo(refunds: Pick<RefundDecisions, 'hint'>): this {
    this.refunds = refunds;
    return this;
  }

  private now(): number {
    return this.opts.clocks.base.nowMs();
  }

  /** The rail port's sendRefund: the reversal of the payment, or what became of the one an earlier call wrote. */
  async send(refund: RefundToSend): Promise<ProviderRefund> {
    const existing = await repo.findReversal(this.opts.db, refund.refundId);
    if (existing) return existing.state === 'unsent' ? this.call(existing) : answerOf(existing);
    const paid = await railRepo.succeededRailPayment(this.opts.db, refund.intent.id, 'mpesa');
    if (!paid?.provider_reference) return { state: 'failed', reason: 'No M-Pesa receipt paid this payment; reverse it by hand.' };
    const details = JSON.parse(paid.details) as { amount_kes: number; callback?: { amount_kes: number } };
    const now = this.now();
    const row: MpesaReversalRow = {
      refund_id: refund.refundId,
      payment_intent_id: refund.intent.id,
      callback_token_hash: '',
      transaction_id: paid.provider_reference,
      amount_kes: details.callback?.amount_kes ?? details.amount_kes,
      state: 'sending',
      conversation_id: null,
      originator_conversation_id: null,
      result_code: null,
      result_desc: null,
      reversal_receipt: null,
      created_at: now,
      updated_at: now,
    };
    const token = randomBytes(24).toString('base64url');
    await repo.insertReversal(this.opts.db, { ...row, callback_token_hash: sha256Hex(token) });
    return this.request(row, token);
  }

  /** The rail port's refundStatus: the reversal as last heard of (its result arrives by callback). */
  async status(reference: string): Promise<ProviderRefund> {
    const row = await repo.findReversalByReference(this.opts.db, reference);
    if (!row) return { state: 'failed', reason: `No M-Pesa reversal is known by ${reference}.` };
    return row.state === 'unsent' ? this.call(row) : answerOf(row);
  }

  /** Sends again a reversal Daraja did not take, at a new result URL. */
  private async call(row: MpesaReversalRow): Promise<ProviderRefund> {
    const token = randomBytes(24).toString('base64url');
    const moved = await repo.moveReversal(this.opts.db, row.refund_id, ['unsent'], {
      state: 'sending',
      callback_token_hash: sha256Hex(token),
      updated_at: this.now(),
    });
    if (!moved) return answerOf((await repo.findReversal(this.opts.db, row.refund_id)) ?? row);
    return this.request(row, token);
  }

  private async request(row: MpesaReversalRow, token: string): Promise<ProviderRefund> {
    const base = `${this.opts.callbackOrigin}/rails/mpesa/reversal/${token}`;
    let ack;
    try {
      ack = await this.opts.client.reversal({
        initiator: this.opts.initiator.name,
        securityCredential: this.opts.initiator.securityCredential,
        transactionId: row.transaction_id,
        amount: row.amount_kes,
        resultUrl: `${base}/result`,
        queueTimeOutUrl: `${base}/timeout`,
        remarks: `Refund ${row.refund_id}`,
        occasion: row.payment_intent_id,
      });
    } catch (err) {
      return this.notTaken(row, err);
    }
    await repo.moveReversal(this.opts.db, row.refund_id, ['sending'], {
      state: 'accepted',
      conversation_id: ack.conversationId,
      originator_conversation_id: ack.originatorConversationId,
      updated_at: this.now(),
    });
    return answerOf((await repo.findReversal(this.opts.db, row.refund_id))!);
  }

  /**
   * Daraja did not acknowledge. A refusal of the request itself is final; an HTTP error or no connection
   * means Daraja did not take it (sent again at the next question); anything else (a time-out) may have
   * reached it, so it is never sent again and waits for its result.
   */
  private async notTaken(row: MpesaReversalRow, err: unknown): Promise<ProviderRefund> {
    const now = this.now();
    if (err instanceof DarajaError && err.status >= 400 && err.status < 500 && err.status !== 429) {
      await repo.moveReversal(this.opts.db, row.refund_id, ['sending'], {
        state: 'failed',
        result_code: err.errorCode,
        result_desc: err.errorMessage,
        updated_at: now,
      });
      return answerOf((await repo.findReversal(this.opts.db, row.refund_id))!);
    }
    const refused = err instanceof DarajaError || /ECONNREFUSED/.test(String((err as { cause?: unknown })?.cause ?? ''));
    if (refused) await repo.moveReversal(this.opts.db, row.refund_id, ['sending'], { state: 'unsent', updated_at: now });
    throw err;
  }

  /**
   * Daraja's result at `/rails/mpesa/reversal/<token>/result` (or `/timeout`): records the outcome once and
   * has the refund settled. Unknown tokens answer 404; a result for another conversation 400; repeats change
   * nothing.
   */
  async handleResult(token: string, kind: 'result' | 'timeout', body: unknown): Promise<ReversalCallbackAnswer> {
    const row = /^[A-Za-z0-9_-]{20,64}$/.test(token) ? await repo.findReversalByToken(this.opts.db, sha256Hex(token)) : undefined;
    if (!row) return { status: 404, body: { ResultCode: 1, ResultDesc: 'Unknown callback' } };
    let result: ReversalResult;
    try {
      result = parseReversalResult(body);
    } catch (err) {
      return { status: 400, body: { ResultCode: 1, ResultDesc: `Rejected: ${(err as Error).message}` } };
    }
    if (row.conversation_id !== null && result.conversationId !== row.conversation_id)
      return { status: 400, body: { ResultCode: 1, ResultDesc: 'Rejected: ConversationID does not match this reversal' } };
    if (FINAL.includes(row.state)) return ACCEPTED;
    const succeeded = kind === 'result' && result.succeeded;
    await repo.moveReversal(this.opts.db, row.refund_id, OPEN, {
      state: succeeded ? 'succeeded' : 'failed',
      conversation_id: result.conversationId,
      result_code: result.resultCode,
      result_desc: kind === 'timeout' ? `Daraja's queue timed out before the reversal ran. ${result.resultDesc}`.trim() : result.resultDesc,
      reversal_receipt: result.transactionId,
      updated_at: this.now(),
    });
    try {
      await this.refunds?.hint('mpesa', row.conversation_id ?? result.conversationId, row.payment_intent_id);
    } catch (err) {
      // Recorded: the refund's next question settles it.
      this.opts.logger?.warn({ err, refund: row.refund_id }, 'M-Pesa reversal result recorded; the refund is settled at its next question');
    }
    return ACCEPTED;
  }
}

/** What the refund framework hears of a reversal. */
function answerOf(row: MpesaReversalRow): ProviderRefund {
  switch (row.state) {
    case 'succeeded':
      return { state: 'succeeded', reference: row.reversal_receipt ?? row.conversation_id ?? row.refund_id };
    case 'failed':
      return {
        state: 'failed',
        ...(row.conversation_id ? { reference: row.conversation_id } : {}),
        reason: `M-Pesa did not reverse the payment: ${row.result_desc || 'no reason given'}${row.result_code ? ` (${row.result_code})` : ''}`,
      };
    default:
      return { state: 'pending', reference: row.conversation_id ?? row.refund_id };
  }
}
