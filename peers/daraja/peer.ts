// A local Daraja (Safaricom's M-Pesa API) for tests and for trying the live M-Pesa flow on a laptop. It
// speaks Daraja's real protocol, written from its public documentation: the OAuth client-credentials token,
// M-Pesa Express (STK push) with its callback to CallBackURL, and the STK query; it checks what it receives
// as strictly as Daraja does (token, Password, Timestamp, Amount, phone format, field lengths). Each phone
// number answers a result code (set per number, or for the next push), with its callback sent after a
// delay, twice, late or never; tokens can be made to run out quickly; the next call can fail.
// Reversals (reversals.ts): `POST /mpesa/reversal/v1/request` of a receipt the peer paid, its result posted to
// ResultURL (or QueueTimeOutURL), once, twice or never; a receipt reverses once.
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createReversals, type ReversalBehaviour, type ReversalRecord } from './reversals.js';

export interface PeerBehaviour {
  resultCode: number;
  resultDesc: string;
  /** When the phone answers, after the push. */
  delayMs: number;
  /** once (default), twice (a duplicate), late (after lateDelayMs more), never (only the query tells). */
  callback: 'once' | 'twice' | 'late' | 'never';
  /** Shillings paid, when not what was asked. */
  amountPaid?: number;
}

export interface DarajaPeerOptions {
  host?: string;
  port?: number;
  consumerKey: string;
  consumerSecret: string;
  shortcode: string;
  passkey: string;
  /** Lifetime of an access token (Daraja: 3599 s). */
  tokenTtlS?: number;
  /** The initiator reversals must name, and its security credential (any non-empty ones when unset). */
  initiatorName?: string;
  securityCredential?: string;
  /** Extra delay of a `late` callback. */
  lateDelayMs?: number;
}

export interface PushRecord {
  body: Record<string, unknown>;
  merchantRequestId: string;
  checkoutRequestId: string;
  behaviour: PeerBehaviour;
  /** When the phone answers (ms). */
  resolvesAt: number;
  receipt: string;
  callbacks: number;
}

const RESULT_DESCS: Record<number, string> = {
  0: 'The service request is processed successfully.',
  1: 'The balance is insufficient for the transaction.',
  1019: 'Transaction has expired',
  1032: 'Request cancelled by user',
  1037: 'DS timeout user cannot be reached',
  2001: 'The initiator information is invalid.',
};

/** The default answer of each test phone number: 254700000001 pays, …02 cancels, …03 no funds, …04 times out, …05 wrong PIN. */
export const DEFAULT_PHONES: Record<string, number> = {
  '254700000001': 0,
  '254700000002': 1032,
  '254700000003': 1,
  '254700000004': 1037,
  '254700000005': 2001,
};

export interface DarajaPeer {
  url: string;
  port: number;
  pushes: PushRecord[];
  /** OAuth tokens handed out. */
  tokenRequests: number;
  /** Callbacks scheduled and not sent yet (a `never` push schedules none). */
  readonly pendingCallbacks: number;
  /** Every call received: method, path, status answered. */
  calls: Array<{ path: string; status: number }>;
  setBehaviour(phone: string, behaviour: Partial<PeerBehaviour>): void;
  /** The next push (whatever its phone) behaves so. */
  setNextBehaviour(behaviour: Partial<PeerBehaviour>): void;
  /** The next call to this endpoint answers this HTTP status with Daraja's error shape. */
  failNext(endpoint: Endpoint, status: 500 | 503 | 400): void;
  /** The answer to the next call of `endpoint` goes out `ms` later (a slow Daraja; the call is counted at once). */
  holdNext(endpoint: Exclude<Endpoint, 'oauth'>, ms: number): void;
  /** Calls received per endpoint, answered or not yet. */
  readonly received: Readonly<Record<Endpoint, number>>;
  /** Reversals received, in order. */
  reversals: ReversalRecord[];
  /** How the next reversal ends (default: succeeds, one result callback after 200 ms). */
  setNextReversal(behaviour: Partial<ReversalBehaviour>): void;
  /** Posts a reversal's result callback again (a duplicate); answers the HTTP status Cowrie gave. */
  resendReversalResult(conversationId: string): Promise<number>;
  /** Forgets every token handed out (Daraja's refusal 404.001.03 follows). */
  expireTokens(): void;
  close(): Promise<void>;
}

type Endpoint = 'oauth' | 'stkpush' | 'query' | 'reversal';

const nairobi = (ms: number) => {
  const t = new Date(ms + 3 * 3_600_000);
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${p(t.getUTCFullYear(), 4)}${p(t.getUTCMonth() + 1)}${p(t.getUTCDate())}${p(t.getUTCHours())}${p(t.getUTCMinutes())}${p(t.getUTCSeconds())}`;
};
const requestId = () => `${randomBytes(4).toString('hex')}-${Date.now()}`;
const ids = () => {
  const n = randomBytes(6).toString('hex');
  return { merchantRequestId: `${n.slice(0, 5)}-${n.slice(5)}-1`, checkoutRequestId: `ws_CO_${nairobi(Date.now())}${n}` };
};
const receipt = () => {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  return Array.from(randomBytes(10), (b) => alphabet[b % alphabet.length]).join('');
};

export async function startDarajaPeer(opts: DarajaPeerOptions): Promise<DarajaPeer> {
  const tokens = new Map<string, number>();
  const phones = new Map<string, Partial<PeerBehaviour>>();
  let next: Partial<PeerBehaviour> | null = null;
  const failures = new Map<string, number>();
  const holds = new Map<Exclude<Endpoint, 'oauth'>, number>();
  const received = { oauth: 0, stkpush: 0, query: 0, reversal: 0 };
  const timers = new Set<NodeJS.Timeout>();
  const pushes: PushRecord[] = [];
  const calls: DarajaPeer['calls'] = [];
  let tokenRequests = 0;

  const behaviourFor = (phone: string): PeerBehaviour => {
    const chosen = next ?? phones.get(phone) ?? {};
    next = null;
    const resultCode = chosen.resultCode ?? DEFAULT_PHONES[phone] ?? 0;
    return {
      resultCode,
      resultDesc: chosen.resultDesc ?? RESULT_DESCS[resultCode] ?? 'The request failed.',
      delayMs: chosen.delayMs ?? 300,
      callback: chosen.callback ?? 'once',
      ...(chosen.amountPaid === undefined ? {} : { amountPaid: chosen.amountPaid }),
    };
  };

  const callbackBody = (p: PushRecord) => ({
    Body: {
      stkCallback: {
        MerchantRequestID: p.merchantRequestId,
        CheckoutRequestID: p.checkoutRequestId,
        ResultCode: p.behaviour.resultCode,
        ResultDesc: p.behaviour.resultDesc,
        ...(p.behaviour.resultCode === 0
          ? {
              CallbackMetadata: {
                Item: [
                  { Name: 'Amount', Value: p.behaviour.amountPaid ?? Number(p.body['Amount']) },
                  { Name: 'MpesaReceiptNumber', Value: p.receipt },
                  { Name: 'TransactionDate', Value: Number(nairobi(p.resolvesAt)) },
                  { Name: 'PhoneNumber', Value: Number(p.body['PhoneNumber']) },
                ],
              },
            }
          : {}),
      },
    },
  });

  const sendCallback = (p: PushRecord, afterMs: number) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      p.callbacks++;
      fetch(String(p.body['CallBackURL']), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(callbackBody(p)),
      }).catch(() => {});
    }, afterMs);
    timers.add(timer);
  };

  const error = (status: number, errorCode: string, errorMessage: string) => ({
    status,
    body: { requestId: requestId(), errorCode, errorMessage },
  });

  function authorized(req: http.IncomingMessage): boolean {
    const m = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
    const exp = m ? tokens.get(m[1]!) : undefined;
    return exp !== undefined && exp > Date.now();
  }

  function checkCredentials(body: Record<string, unknown>): string | null {
    if (body['BusinessShortCode'] !== opts.shortcode && body['BusinessShortCode'] !== Number(opts.shortcode)) return 'BusinessShortCode';
    const ts = body['Timestamp'];
    if (typeof ts !== 'string' || !/^\d{14}$/.test(ts)) return 'Timestamp';
    // Within five minutes of now, Nairobi time.
    const asUtc = Date.UTC(+ts.slice(0, 4), +ts.slice(4, 6) - 1, +ts.slice(6, 8), +ts.slice(8, 10), +ts.slice(10, 12), +ts.slice(12, 14));
    if (Math.abs(asUtc - 3 * 3_600_000 - Date.now()) > 5 * 60_000) return 'Timestamp';
    const want = Buffer.from(`${opts.shortcode}${opts.passkey}${ts}`).toString('base64');
    if (body['Password'] !== want) return 'Password';
    return null;
  }

  function stkPush(body: Record<string, unknown>) {
    const bad = checkCredentials(body);
    if (bad) return error(400, '400.002.02', `Bad Request - Invalid ${bad}`);
    if (body['TransactionType'] !== 'CustomerPayBillOnline' && body['TransactionType'] !== 'CustomerBuyGoodsOnline')
      return error(400, '400.002.02', 'Bad Request - Invalid TransactionType');
    const amount = body['Amount'];
    if (typeof amount !== 'number' || !Number.isInteger(amount) || amount < 1)
      return error(400, '400.002.02', 'Bad Request - Invalid Amount');
    for (const k of ['PartyA', 'PhoneNumber']) {
      if (!/^254[17]\d{8}$/.test(String(body[k] ?? ''))) return error(400, '400.002.02', `Bad Request - Invalid ${k}`);
    }
    if (String(body['PartyB']) !== opts.shortcode) return error(400, '400.002.02', 'Bad Request - Invalid PartyB');
    const cb = body['CallBackURL'];
    if (typeof cb !== 'string' || !/^https?:\/\/[^\s]+$/.test(cb)) return error(400, '400.002.02', 'Bad Request - Invalid CallBackURL');
    const ref = body['AccountReference'];
    if (typeof ref !== 'string' || ref.length === 0 || ref.length > 12)
      return error(400, '400.002.02', 'Bad Request - Invalid AccountReference');
    const desc = body['TransactionDesc'];
    if (typeof desc !== 'string' || desc.length === 0 || desc.length > 13)
      return error(400, '400.002.02', 'Bad Request - Invalid TransactionDesc');
    const behaviour = behaviourFor(String(body['PhoneNumber']));
    const record: PushRecord = { body, ...ids(), behaviour, resolvesAt: Date.now() + behaviour.delayMs, receipt: receipt(), callbacks: 0 };
    pushes.push(record);
    if (behaviour.callback !== 'never')
      sendCallback(record, behaviour.delayMs + (behaviour.callback === 'late' ? (opts.lateDelayMs ?? 5000) : 0));
    if (behaviour.callback === 'twice') sendCallback(record, behaviour.delayMs + 200);
    return {
      status: 200,
      body: {
        MerchantRequestID: record.merchantRequestId,
        CheckoutRequestID: record.checkoutRequestId,
        ResponseCode: '0',
        ResponseDescription: 'Success. Request accepted for processing',
        CustomerMessage: 'Success. Request accepted for processing',
      },
    };
  }

  function stkQuery(body: Record<string, unknown>) {
    const bad = checkCredentials(body);
    if (bad) return error(400, '400.002.02', `Bad Request - Invalid ${bad}`);
    const p = pushes.find((x) => x.checkoutRequestId === body['CheckoutRequestID']);
    if (!p) return error(400, '400.002.02', 'Bad Request - Invalid CheckoutRequestID');
    if (p.resolvesAt > Date.now()) return error(500, '500.001.1001', 'The transaction is being processed');
    return {
      status: 200,
      body: {
        ResponseCode: '0',
        ResponseDescription: 'The service request has been accepted successsfully',
        MerchantRequestID: p.merchantRequestId,
        CheckoutRequestID: p.checkoutRequestId,
        ResultCode: String(p.behaviour.resultCode),
        ResultDesc: p.behaviour.resultDesc,
      },
    };
  }

  const reversals = createReversals({
    shortcode: opts.shortcode,
    ...(opts.initiatorName ? { initiatorName: opts.initiatorName } : {}),
    ...(opts.securityCredential ? { securityCredential: opts.securityCredential } : {}),
    paid: (r) => {
      const p = pushes.find((x) => x.receipt === r && x.behaviour.resultCode === 0 && x.resolvesAt <= Date.now());
      return p ? { amount: p.behaviour.amountPaid ?? Number(p.body['Amount']), phone: String(p.body['PhoneNumber']) } : undefined;
    },
    timers,
    error,
    newReceipt: receipt,
    requestId,
  });

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0]!;
      const endpoint =
        path === '/oauth/v1/generate'
          ? 'oauth'
          : path === '/mpesa/stkpush/v1/processrequest'
            ? 'stkpush'
            : path === '/mpesa/stkpushquery/v1/query'
              ? 'query'
              : path === '/mpesa/reversal/v1/request'
                ? 'reversal'
                : null;
      if (endpoint) received[endpoint]++;
      const answer = (() => {
        if (!endpoint) return error(404, '404.001.01', 'Resource not found');
        const failure = failures.get(endpoint);
        if (failure !== undefined) {
          failures.delete(endpoint);
          return error(failure, `${failure}.003.01`, failure === 503 ? 'Service Unavailable' : 'Internal Server Error');
        }
        if (endpoint === 'oauth') {
          if (req.method !== 'GET' || !(req.url ?? '').includes('grant_type=client_credentials'))
            return error(400, '400.008.02', 'Invalid grant type passed');
          const expected = `Basic ${Buffer.from(`${opts.consumerKey}:${opts.consumerSecret}`).toString('base64')}`;
          if (req.headers.authorization !== expected) return error(400, '400.008.01', 'Invalid Authentication passed');
          tokenRequests++;
          const token = createHash('sha256').update(randomBytes(16)).digest('base64url').slice(0, 28);
          const ttl = opts.tokenTtlS ?? 3599;
          tokens.set(token, Date.now() + ttl * 1000);
          return { status: 200, body: { access_token: token, expires_in: String(ttl) } };
        }
        if (req.method !== 'POST') return error(405, '405.001.01', 'Method Not Allowed');
        if (!authorized(req)) return error(404, '404.001.03', 'Invalid Access Token');
        let body: unknown;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          return error(400, '400.002.05', 'Invalid Request Payload');
        }
        if (body === null || typeof body !== 'object' || Array.isArray(body)) return error(400, '400.002.05', 'Invalid Request Payload');
        const fields = body as Record<string, unknown>;
        if (endpoint === 'reversal') return reversals.request(fields);
        return endpoint === 'stkpush' ? stkPush(fields) : stkQuery(fields);
      })();
      const hold = endpoint && endpoint !== 'oauth' ? holds.get(endpoint) : undefined;
      if (hold !== undefined) holds.delete(endpoint as Exclude<Endpoint, 'oauth'>);
      const send = () => {
        calls.push({ path, status: answer.status });
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer.body));
      };
      if (hold === undefined) send();
      else setTimeout(send, hold);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: opts.port ?? 0, host: opts.host ?? '127.0.0.1' }, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${opts.host ?? '127.0.0.1'}:${port}`,
    port,
    pushes,
    calls,
    get tokenRequests() {
      return tokenRequests;
    },
    get pendingCallbacks() {
      return timers.size;
    },
    setBehaviour: (phone, b) => void phones.set(phone.replace(/^\+/, ''), b),
    setNextBehaviour: (b) => {
      next = b;
    },
    failNext: (endpoint, status) => void failures.set(endpoint, status),
    holdNext: (endpoint, ms) => void holds.set(endpoint, ms),
    received,
    reversals: reversals.records,
    setNextReversal: reversals.setNext,
    resendReversalResult: reversals.resend,
    expireTokens: () => tokens.clear(),
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
