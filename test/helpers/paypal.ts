// What the live PayPal tests share: the credentials the PayPal peer and the server agree on, the server's
// environment pointing its live PayPal rail at a peer, and where the peer's webhooks go.
import type { PaypalPeer } from '../../peers/paypal/peer.js';

export const PAYPAL_TEST = { clientId: 'cowrie-test-client', clientSecret: 'cowrie-test-secret-0123', webhookId: 'WHTEST0123456789' };

export function paypalEnv(peer: PaypalPeer, livePort: number, sandboxPort: number): Record<string, string> {
  return {
    COWRIE_LIVE_PORT: String(livePort),
    COWRIE_SANDBOX_PORT: String(sandboxPort),
    COWRIE_PAYPAL_BASE_URL: peer.url,
    COWRIE_PAYPAL_CLIENT_ID: PAYPAL_TEST.clientId,
    COWRIE_PAYPAL_CLIENT_SECRET: PAYPAL_TEST.clientSecret,
    COWRIE_PAYPAL_WEBHOOK_ID: PAYPAL_TEST.webhookId,
  };
}

/** The peer's webhooks go to the live listener on this port. */
export function pointPaypalWebhooksAt(peer: PaypalPeer, livePort: number): void {
  peer.webhookUrl = `http://127.0.0.1:${livePort}/rails/paypal/webhook`;
}
