// The Daraja peer's Reversals API, written from Daraja's public documentation: `POST
// /mpesa/reversal/v1/request` with Initiator, SecurityCredential, CommandID `TransactionReversal`,
// TransactionID (the receipt reversed), Amount, ReceiverParty (the shortcode), RecieverIdentifierType (11, as
// Daraja spells it), ResultURL, QueueTimeOutURL, Remarks and Occasion, checked as Daraja checks them; an
// acknowledgement at once ({OriginatorConversationID, ConversationID, ResponseCode "0"}), then the result
// posted to ResultURL: `{Result: {ResultType, ResultCode, ResultDesc, OriginatorConversationID,
// ConversationID, TransactionID, ResultParameters, ReferenceData}}`. A receipt the peer never paid, an
// amount other than paid, a receipt already reversed or a wrong initiator end in a failed result, as on
// Daraja; tests choose the next outcome, a duplicate callback, none at all, or a queue time-out.
import { randomBytes } from 'node:crypto';

export interface ReversalBehaviour {
  /** 0 succeeds; any other code fails with resultDesc. */
  resultCode: number | string;
  resultDesc: string;
  delayMs: number;
  /** once (default), twice (a duplicate), never (no result at all), timeout (QueueTimeOutURL instead). */
  callback: 'once' | 'twice' | 'never' | 'timeout';
}

export interface ReversalRecord {
  body: Record<string, unknown>;
  conversationId: string;
  originatorConversationId: string;
  /** The reversal's own M-Pesa transaction id (on success). */
  receipt: string;
  resultCode: number | string;
  resultDesc: string;
  /** Result callbacks posted, and the HTTP status of each answer. */
  answers: number[];
}

interface Deps {
  shortcode: string;
  initiatorName?: string;
  securityCredential?: string;
  /** The payment a receipt paid (shillings and phone), when the peer paid it. */
  paid(receipt: string): { amount: number; phone: string } | undefined;
  timers: Set<NodeJS.Timeout>;
  error(status: number, code: string, message: string): { status: number; body: unknown };
  newReceipt(): string;
  requestId(): string;
}

const bad = (deps: Deps, field: string) => deps.error(400, '400.002.02', `Bad Request - Invalid ${field}`);
const isUrl = (v: unknown) => typeof v === 'string' && /^https?:\/\/[^\s]+$/.test(v);

export function createReversals(deps: Deps) {
  const records: ReversalRecord[] = [];
  const reversed = new Set<string>();
  let next: Partial<ReversalBehaviour> | null = null;

  const resultBody = (r: ReversalRecord, amount: number | undefined) => ({
    Result: {
      ResultType: 0,
      ResultCode: r.resultCode,
      ResultDesc: r.resultDesc,
      OriginatorConversationID: r.originatorConversationId,
      ConversationID: r.conversationId,
      TransactionID: r.receipt,
      ...(String(r.resultCode) === '0'
        ? {
            ResultParameters: {
              ResultParameter: [
                { Key: 'DebitAccountBalance', Value: 'Utility Account|KES|51661.00|51661.00|0.00|0.00' },
                { Key: 'Amount', Value: amount ?? Number(r.body['Amount']) },
                { Key: 'TransCompletedTime', Value: Number(new Date().toISOString().replace(/\D/g, '').slice(0, 14)) },
                { Key: 'OriginalTransactionID', Value: String(r.body['TransactionID']) },
                { Key: 'Charge', Value: 0 },
                { Key: 'CreditPartyPublicName', Value: 'Customer' },
                { Key: 'DebitPartyPublicName', Value: `${deps.shortcode} - Cowrie merchant` },
              ],
            },
          }
        : {}),
      ReferenceData: { ReferenceItem: { Key: 'QueueTimeoutURL', Value: String(r.body['QueueTimeOutURL']) } },
    },
  });

  const post = async (r: ReversalRecord, url: string, amount: number | undefined) => {
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(resultBody(r, amount)),
      });
      r.answers.push(res.status);
      return res.status;
    } catch {
      r.answers.push(0);
      return 0;
    }
  };

  const later = (ms: number, f: () => void) => {
    const timer = setTimeout(() => {
      deps.timers.delete(timer);
      f();
    }, ms);
    deps.timers.add(timer);
  };

  /** Checks the request as Daraja does; a field that is wrong answers 400 at once. */
  function check(body: Record<string, unknown>) {
    for (const k of ['Initiator', 'SecurityCredential', 'TransactionID', 'Remarks'] as const)
      if (typeof body[k] !== 'string' || (body[k] as string).length === 0) return bad(deps, k);
    if (body['CommandID'] !== 'TransactionReversal') return bad(deps, 'CommandID');
    const amount = Number(body['Amount']);
    if (!Number.isFinite(amount) || amount < 1) return bad(deps, 'Amount');
    if (String(body['ReceiverParty']) !== deps.shortcode) return bad(deps, 'ReceiverParty');
    if (String(body['RecieverIdentifierType']) !== '11') return bad(deps, 'RecieverIdentifierType');
    if (!isUrl(body['ResultURL'])) return bad(deps, 'ResultURL');
    if (!isUrl(body['QueueTimeOutURL'])) return bad(deps, 'QueueTimeOutURL');
    const remarks = String(body['Remarks']);
    if (remarks.length < 2 || remarks.length > 100) return bad(deps, 'Remarks');
    if (body['Occasion'] !== undefined && String(body['Occasion']).length > 100) return bad(deps, 'Occasion');
    return null;
  }

  /** What M-Pesa makes of a well-formed request: the test's choice, else the checks Daraja runs on the transaction. */
  function outcome(body: Record<string, unknown>): { resultCode: number | string; resultDesc: string } {
    const chosen = next;
    next = null;
    if (chosen?.resultCode !== undefined) return { resultCode: chosen.resultCode, resultDesc: chosen.resultDesc ?? 'The request failed.' };
    if (
      (deps.initiatorName && body['Initiator'] !== deps.initiatorName) ||
      (deps.securityCredential && body['SecurityCredential'] !== deps.securityCredential)
    )
      return { resultCode: 2001, resultDesc: 'The initiator information is invalid.' };
    const receipt = String(body['TransactionID']);
    const paid = deps.paid(receipt);
    if (!paid) return { resultCode: 'R000002', resultDesc: 'The OriginalTransID is invalid.' };
    if (reversed.has(receipt)) return { resultCode: 'R000001', resultDesc: 'The transaction has already been reversed.' };
    if (Number(body['Amount']) !== paid.amount)
      return { resultCode: 2, resultDesc: 'Declined due to limit rule: the amount is not that of the transaction.' };
    return { resultCode: 0, resultDesc: 'The service request is processed successfully.' };
  }

  function request(body: Record<string, unknown>) {
    const refused = check(body);
    if (refused) return refused;
    const behaviour: ReversalBehaviour = {
      resultCode: 0,
      resultDesc: '',
      delayMs: next?.delayMs ?? 200,
      callback: next?.callback ?? 'once',
    };
    const { resultCode, resultDesc } = outcome(body);
    const succeeded = String(resultCode) === '0';
    if (succeeded) reversed.add(String(body['TransactionID']));
    const r: ReversalRecord = {
      body,
      conversationId: `AG_${new Date().toISOString().slice(0, 10).replace(/-/g, '')}_${randomBytes(10).toString('hex')}`,
      originatorConversationId: `${randomBytes(3).toString('hex')}-${randomBytes(4).toString('hex')}-1`,
      receipt: succeeded ? deps.newReceipt() : '',
      resultCode,
      resultDesc,
      answers: [],
    };
    records.push(r);
    const amount = deps.paid(String(body['TransactionID']))?.amount;
    if (behaviour.callback === 'timeout') {
      const timedOut = { ...r, resultCode: 1, resultDesc: 'The request timed out in the queue.', receipt: '' };
      later(
        behaviour.delayMs,
        () => void post(timedOut, String(body['QueueTimeOutURL']), amount).then(() => r.answers.push(...timedOut.answers)),
      );
    } else if (behaviour.callback !== 'never') {
      later(behaviour.delayMs, () => void post(r, String(body['ResultURL']), amount));
      if (behaviour.callback === 'twice') later(behaviour.delayMs + 150, () => void post(r, String(body['ResultURL']), amount));
    }
    return {
      status: 200,
      body: {
        OriginatorConversationID: r.originatorConversationId,
        ConversationID: r.conversationId,
        ResponseCode: '0',
        ResponseDescription: 'Accept the service request successfully.',
      },
    };
  }

  return {
    records,
    request,
    setNext: (b: Partial<ReversalBehaviour>) => {
      next = b;
    },
    resend: async (conversationId: string) => {
      const r = records.find((x) => x.conversationId === conversationId);
      if (!r) throw new Error(`no reversal ${conversationId}`);
      return post(r, String(r.body['ResultURL']), deps.paid(String(r.body['TransactionID']))?.amount);
    },
  };
}
