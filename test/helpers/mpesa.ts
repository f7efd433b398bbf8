// What the live M-Pesa tests share: the Daraja credentials the peer and the server agree on, and the
// server's environment pointing its live M-Pesa rail at a peer, with callbacks to the live listener.
import type { DarajaPeer, PushRecord } from '../../peers/daraja/peer.js';

export const MPESA_TEST_CREDENTIALS = { consumerKey: 'ck-test', consumerSecret: 'cs-test', shortcode: '174379', passkey: 'pk-test' };

export function mpesaEnv(peer: DarajaPeer, livePort: number, sandboxPort: number): Record<string, string> {
  return {
    COWRIE_LIVE_PORT: String(livePort),
    COWRIE_SANDBOX_PORT: String(sandboxPort),
    COWRIE_MPESA_BASE_URL: peer.url,
    COWRIE_MPESA_CONSUMER_KEY: MPESA_TEST_CREDENTIALS.consumerKey,
    COWRIE_MPESA_CONSUMER_SECRET: MPESA_TEST_CREDENTIALS.consumerSecret,
    COWRIE_MPESA_SHORTCODE: MPESA_TEST_CREDENTIALS.shortcode,
    COWRIE_MPESA_PASSKEY: MPESA_TEST_CREDENTIALS.passkey,
    COWRIE_MPESA_CALLBACK_URL: `http://127.0.0.1:${livePort}`,
  };
}

/**
 * Posts a success callback of `push` to its CallBackURL as Daraja words it (by default for the shillings asked
 * and the peer's receipt; a test forging one gives its own); answers the HTTP status Cowrie gave.
 */
export async function postStkSuccess(push: PushRecord, made: { amount?: number; receipt?: string } = {}): Promise<number> {
  const res = await fetch(String(push.body['CallBackURL']), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      Body: {
        stkCallback: {
          MerchantRequestID: push.merchantRequestId,
          CheckoutRequestID: push.checkoutRequestId,
          ResultCode: 0,
          ResultDesc: 'The service request is processed successfully.',
          CallbackMetadata: {
            Item: [
              { Name: 'Amount', Value: made.amount ?? Number(push.body['Amount']) },
              { Name: 'MpesaReceiptNumber', Value: made.receipt ?? push.receipt },
              { Name: 'PhoneNumber', Value: Number(push.body['PhoneNumber']) },
            ],
          },
        },
      },
    }),
  });
  await res.arrayBuffer();
  return res.status;
}
