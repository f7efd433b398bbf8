// A payer tops up by M-Pesa at a locked quote. Step 1 (quote): the payer names the asset, whole shillings
// and the phone; the KES price of the asset is read now and the asset amount locked for 10 minutes, as the
// API's quotes are (POST /quotes, customer_pays), before any PIN is asked. Step 2 (confirm): the payer's
// transaction PIN is checked with PayerAuth's check and lockout (the one paying uses); the top-up moves from
// quoted to pending in its own commit, then Daraja is asked for the STK push (no transaction is held across
// the call), then its CheckoutRequestID is kept. Daraja's callback comes to the same callback path as the
// rail's, under a token of its own shape (`ptm.` + random, which no rail payment's token can be), and must
// name the top-up's CheckoutRequestID. A failure ends the top-up failed with its reason; a success is only
// a hint until Daraja's STK query confirms it, and then the payer is credited exactly the locked asset
// amount (pro rata when M-Pesa reports another amount paid) in the same transaction that moves the top-up
// from pending to credited: repeated or concurrent callbacks, questions and restarts credit once. Pending
// top-ups are asked about (STK query) from COWRIE_MPESA_QUERY_AFTER_S on, doubling to five minutes, by the
// time jobs, in whichever process holds them, until Daraja gives a final answer.
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { PayerMpesaTopupRow } from '../../db/schema.js';
import { transaction, type Db } from '../../db/transaction.js';
import { MINUTE_MS, type Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { Decimal, assetForFiat, formatAmount } from '../../shared/money.js';
import { sha256Hex } from '../../shared/sha256.js';
import { ConsoleError } from '../console/index.js';
import { PAYER_ASSETS, postPayerMovement, type PayerAsset } from '../ledger/index.js';
import { QUOTE_LOCK_MS } from '../quotes/index.js';
import type { RateProvider } from '../rates/index.js';
import {
  DarajaError,
  maskPhone,
  normalizeMpesaPhone,
  outcomeOfResultCode,
  parseStkCallback,
  type CallbackAnswer,
  type DarajaApi,
  type StkCallback,
} from '../rails/index.js';
import type { PayerAuth, PayerIdentity } from './payer-auth.service.js';
import { findPayer } from './payers.repo.js';
import * as repo from './mpesa-topups.repo.js';

/** Callback tokens of top-ups start so: a `.` is in no rail payment's token (base64url), so the two never mix. */
export const TOPUP_TOKEN_PREFIX = 'ptm.';
/** M-Pesa's limits of one payment, in whole shillings. */
export const TOPUP_MIN_KES = 1;
export const TOPUP_MAX_KES = 250_000;
/** A top-up confirmed this long ago whose push Daraja never acknowledged (a crash, a lost answer) failed. */
const PUSH_LOST_AFTER_MS = 10 * MINUTE_MS;
const MAX_QUESTION_GAP_MS = 5 * MINUTE_MS;

const ACCEPTED: CallbackAnswer = { status: 200, body: { ResultCode: 0, ResultDesc: 'Accepted' } };
const refused = (status: 400 | 404, desc: string): CallbackAnswer => ({ status, body: { ResultCode: 1, ResultDesc: desc } });

export interface MpesaTopupView {
  id: string;
  /** quoted turns expired on display once its quote ran out. */
  status: PayerMpesaTopupRow['status'];
  kes_amount: number;
  asset: PayerAsset;
  asset_amount: string;
  rate: string;
  quote_expires_at: number;
  phone: string;
  credited_amount: string | null;
  mpesa_receipt: string | null;
  failure_reason: string | null;
  created_at: number;
}

export interface PayerMpesaTopupsOptions {
  db: Db;
  clock: Clock;
  rates: RateProvider;
  client: DarajaApi;
  auth: Pick<PayerAuth, 'checkPin' | 'audit'>;
  /** Public origin Daraja posts callbacks to. */
  callbackOrigin: string;
  /** First question after this long without a callback. */
  queryAfterMs: number;
  logger?: Logger;
}

export class PayerMpesaTopups {
  readonly callbackPrefix = TOPUP_TOKEN_PREFIX;

  constructor(private readonly deps: PayerMpesaTopupsOptions) {}

  private now(): number {
    return this.deps.clock.nowMs();
  }

  view(row: PayerMpesaTopupRow): MpesaTopupView {
    const expired = row.status === 'quoted' && Number(row.quote_expires_at) <= this.now();
    return {
      id: row.id,
      status: expired ? 'expired' : row.status,
      kes_amount: Number(row.kes_amount),
      asset: row.asset as PayerAsset,
      asset_amount: row.asset_amount,
      rate: row.rate,
      quote_expires_at: Number(row.quote_expires_at),
      phone: maskPhone(row.phone),
      credited_amount: row.credited_amount,
      mpesa_receipt: row.status === 'credited' ? row.mpesa_receipt : null,
      failure_reason: row.failure_reason,
      created_at: Number(row.created_at),
    };
  }

  /** The payer's latest top-ups, newest first. */
  async list(payerId: string, limit = 20): Promise<MpesaTopupView[]> {
    return (await repo.listTopups(this.deps.db, payerId, limit)).map((r) => this.view(r));
  }

  /** One of the payer's own top-ups (another payer's is not found). */
  async find(payerId: string, id: string): Promise<MpesaTopupView> {
    return this.view(await this.own(payerId, id));
  }

  private async own(payerId: string, id: string): Promise<PayerMpesaTopupRow> {
    const row = /^ptm_[0-9A-Za-z]{1,64}$/.test(id) ? await repo.findTopup(this.deps.db, id) : undefined;
    if (!row || row.payer_id !== payerId) throw new ConsoleError(404, 'There is no such top-up in your wallet.');
    return row;
  }

  private async refuseSuspended(payerId: string): Promise<void> {
    const payer = await findPayer(this.deps.db, payerId);
    if (!payer || payer.status === 'suspended') {
      throw new ConsoleError(403, 'This account is suspended: it cannot top up. Contact the service operator.');
    }
  }

  /** Step 1: the quote, locked for 10 minutes; nothing is sent to the phone yet. */
  async quote(payer: PayerIdentity, input: { asset: string; kes: string; phone: string }): Promise<MpesaTopupView> {
    await this.refuseSuspended(payer.id);
    const asset = input.asset.trim().toUpperCase() as PayerAsset;
    if (!PAYER_ASSETS.includes(asset)) throw new ConsoleError(400, `Choose the asset to add: ${PAYER_ASSETS.join(' or ')}.`);
    const kesText = input.kes.trim();
    if (!/^[0-9]{1,7}$/.test(kesText) || Number(kesText) < TOPUP_MIN_KES || Number(kesText) > TOPUP_MAX_KES) {
      throw new ConsoleError(
        400,
        `Enter whole shillings from ${TOPUP_MIN_KES} to ${TOPUP_MAX_KES.toLocaleString('en')} (M-Pesa's limits of one payment).`,
      );
    }
    let phone: string;
    let rate: Decimal;
    try {
      phone = normalizeMpesaPhone(input.phone);
      rate = this.deps.rates.price(asset, 'KES');
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      throw new ConsoleError(err.code === 'rates_unavailable' ? 503 : 400, err.message);
    }
    const kes = Number(kesText);
    const now = this.now();
    const row: PayerMpesaTopupRow = {
      id: newId('payer_mpesa_topup'),
      payer_id: payer.id,
      environment: payer.environment,
      kes_amount: kes,
      asset,
      asset_amount: formatAmount(assetForFiat(new Decimal(kes), rate, asset), asset),
      rate: rate.toFixed(),
      quote_expires_at: now + QUOTE_LOCK_MS,
      phone,
      status: 'quoted',
      callback_token_hash: null,
      checkout_request_id: null,
      paid_kes: null,
      mpesa_receipt: null,
      credited_amount: null,
      failure_code: null,
      failure_reason: null,
      resolve_at: null,
      queries: 0,
      confirmed_at: null,
      created_at: now,
      updated_at: now,
    };
    await repo.insertTopup(this.deps.db, row);
    return this.view(row);
  }

  /**
   * Step 2: the PIN, then the STK push. Refused, with nothing sent, when the quote ran out, the payer is
   * suspended, the PIN is wrong or paying is locked, or the top-up was confirmed already.
   */
  async confirm(payer: PayerIdentity, id: string, pin: string, ip: string | null): Promise<MpesaTopupView> {
    const row = await this.own(payer.id, id);
    const now = this.now();
    if (row.status === 'quoted' && Number(row.quote_expires_at) <= now) {
      await repo.moveTopup(this.deps.db, row.id, 'quoted', { status: 'expired', updated_at: now });
    }
    if (row.status !== 'quoted' || Number(row.quote_expires_at) <= now) return this.refuseNotQuoted(row.id);
    await this.refuseSuspended(payer.id);
    const checked = await this.deps.auth.checkPin(payer.id, pin.trim(), ip);
    if (!checked.ok) throw new ConsoleError(checked.locked ? 423 : 400, checked.message);
    const token = `${TOPUP_TOKEN_PREFIX}${randomBytes(24).toString('base64url')}`;
    const sent = await repo.moveTopup(
      this.deps.db,
      row.id,
      'quoted',
      {
        status: 'pending',
        callback_token_hash: sha256Hex(token),
        confirmed_at: now,
        resolve_at: now + this.deps.queryAfterMs,
        updated_at: now,
      },
      { unexpiredAt: now },
    );
    if (!sent) return this.refuseNotQuoted(row.id);
    await this.deps.auth.audit(
      payer.id,
      payer.email,
      'topup.mpesa.confirmed',
      { topup: row.id, kes: row.kes_amount, asset: row.asset },
      ip,
    );
    await this.push(row, token);
    return this.view((await repo.findTopup(this.deps.db, row.id))!);
  }

  /** Why a top-up can no longer be confirmed, in the payer's words. */
  private async refuseNotQuoted(id: string): Promise<never> {
    const row = (await repo.findTopup(this.deps.db, id))!;
    const view = this.view(row);
    if (view.status === 'expired') {
      const at = `${new Date(view.quote_expires_at).toISOString().slice(11, 16)} UTC`;
      throw new ConsoleError(409, `This quote expired at ${at}: prices move, so ask for a new quote. Nothing was sent to your phone.`);
    }
    throw new ConsoleError(409, 'This top-up was confirmed already: check your phone for the M-Pesa prompt.');
  }

  /** The STK push of a confirmed top-up; Daraja's refusal (or no answer) fails it with Daraja's words. */
  private async push(row: PayerMpesaTopupRow, token: string): Promise<void> {
    try {
      const answer = await this.deps.client.stkPush({
        amount: Number(row.kes_amount),
        phone: row.phone.slice(1),
        callbackUrl: `${this.deps.callbackOrigin}/rails/mpesa/callback/${token}`,
        accountReference: row.id.slice(-12),
        description: 'Wallet top-up',
      });
      await repo.moveTopup(this.deps.db, row.id, 'pending', { checkout_request_id: answer.checkoutRequestId, updated_at: this.now() });
    } catch (err) {
      this.deps.logger?.warn({ err, topup: row.id }, 'M-Pesa top-up STK push failed');
      const text = err instanceof DarajaError ? err.errorMessage : String((err as Error)?.message ?? err);
      await this.fail(row.id, 'provider_error', `M-Pesa could not send the prompt: ${text}`);
    }
  }

  private async fail(id: string, code: string, reason: string): Promise<void> {
    const now = this.now();
    const patch = { status: 'failed' as const, failure_code: code, failure_reason: reason, resolve_at: null, updated_at: now };
    await repo.moveTopup(this.deps.db, id, 'pending', patch);
  }

  /**
   * Daraja's callback at `/rails/mpesa/callback/ptm.<token>`: a failure ends the top-up at once; a success
   * is kept and confirmed by the STK query before anything is credited. Duplicates change nothing.
   */
  async handleCallback(token: string, body: unknown): Promise<CallbackAnswer> {
    const ok = token.startsWith(TOPUP_TOKEN_PREFIX) && /^[A-Za-z0-9_-]{20,64}$/.test(token.slice(TOPUP_TOKEN_PREFIX.length));
    const row = ok ? await repo.findByCallbackToken(this.deps.db, sha256Hex(token)) : undefined;
    if (!row) return refused(404, 'Unknown callback');
    let cb: StkCallback;
    try {
      cb = parseStkCallback(body);
    } catch (err) {
      return refused(400, `Rejected: ${(err as Error).message}`);
    }
    if (row.checkout_request_id !== null && cb.checkoutRequestId !== row.checkout_request_id) {
      return refused(400, 'Rejected: CheckoutRequestID does not match this top-up');
    }
    if (row.status !== 'pending') return ACCEPTED;
    if (cb.resultCode !== 0) {
      await this.finish(row, cb.resultCode, cb.resultDesc);
      return ACCEPTED;
    }
    const hint = { checkoutRequestId: cb.checkoutRequestId, receipt: cb.receipt!, paidKes: cb.amount! };
    if (await repo.recordCallback(this.deps.db, row.id, hint, this.now())) await this.poll(row.id);
    return ACCEPTED;
  }

  /** The time jobs' step: asks about every pending top-up whose question is due; answers how many were due. */
  async askDue(): Promise<number> {
    const due = await repo.dueTopups(this.deps.db, this.now(), 200);
    for (const row of due) await this.poll(row.id);
    return due.length;
  }

  /** One question (STK query) about a pending top-up whose answer is due, claimed so that one process asks. */
  async poll(id: string): Promise<void> {
    const row = await repo.findTopup(this.deps.db, id);
    const now = this.now();
    if (!row || row.status !== 'pending' || row.resolve_at === null || Number(row.resolve_at) > now) return;
    const queries = Number(row.queries) + 1;
    const gap = Math.min(MAX_QUESTION_GAP_MS, this.deps.queryAfterMs * 2 ** Math.min(queries, 16));
    const claimed = await repo.moveTopup(
      this.deps.db,
      row.id,
      'pending',
      { resolve_at: now + gap, queries, updated_at: now },
      { dueAt: Number(row.resolve_at) },
    );
    if (!claimed) return;
    if (row.checkout_request_id === null) {
      // Daraja's answer to the push never arrived (nor a callback, which would have brought the id).
      if (now - Number(row.confirmed_at ?? row.created_at) >= PUSH_LOST_AFTER_MS) {
        await this.fail(row.id, 'provider_error', 'M-Pesa never acknowledged the prompt; nothing was taken. Try again.');
      }
      return;
    }
    let answer;
    try {
      answer = await this.deps.client.stkQuery(row.checkout_request_id);
    } catch (err) {
      this.deps.logger?.warn({ err, topup: row.id }, 'M-Pesa top-up STK query failed; asking again later');
      return;
    }
    if (answer.state === 'final') await this.finish(row, answer.resultCode, answer.resultDesc);
  }

  /**
   * A final answer: credited (the locked asset amount, or pro rata at the locked rate when M-Pesa reported
   * other shillings paid) in the same transaction that moves the top-up, or failed with the reason.
   */
  private async finish(row: PayerMpesaTopupRow, resultCode: number, resultDesc: string): Promise<void> {
    const mapped = outcomeOfResultCode(resultCode, resultDesc);
    if (mapped.outcome !== 'success') {
      const reason = FAILURE_WORDS[mapped.failureCode] ?? `M-Pesa refused it: ${mapped.providerText ?? resultDesc}`;
      return this.fail(row.id, mapped.failureCode, reason);
    }
    // The callback's hint, read again: it may have come after this row was read.
    const latest = (await repo.findTopup(this.deps.db, row.id))!;
    const asset = latest.asset as PayerAsset;
    const asked = Number(latest.kes_amount);
    const paid = latest.paid_kes === null ? asked : Number(latest.paid_kes);
    const amount =
      paid === asked
        ? new Decimal(latest.asset_amount)
        : new Decimal(latest.asset_amount).mul(paid).div(asked).toDecimalPlaces(6, Decimal.ROUND_DOWN);
    const now = this.now();
    await transaction(this.deps.db, async (tx) => {
      const moved = await repo.moveTopup(tx, row.id, 'pending', {
        status: 'credited',
        credited_amount: formatAmount(amount, asset),
        resolve_at: null,
        updated_at: now,
      });
      if (!moved || amount.isZero()) return;
      const receipt = latest.mpesa_receipt ? `, receipt ${latest.mpesa_receipt}` : '';
      const partly = paid === asked ? '' : ` (KES ${paid} paid of ${asked})`;
      await postPayerMovement(tx, {
        payerId: latest.payer_id,
        environment: latest.environment,
        asset,
        kind: 'top_up',
        amount,
        at: now,
        reason: `M-Pesa KES ${asked} at ${latest.rate}${partly}${receipt} (${latest.id})`,
      });
    });
  }
}

const FAILURE_WORDS: Record<string, string> = {
  customer_cancelled: 'You cancelled the M-Pesa prompt; nothing was taken.',
  insufficient_funds: 'M-Pesa: not enough funds on the phone; nothing was taken.',
  timeout: 'The M-Pesa prompt was not answered in time; nothing was taken.',
  invalid_pin: 'M-Pesa: the M-Pesa PIN entered on the phone was wrong; nothing was taken.',
};
