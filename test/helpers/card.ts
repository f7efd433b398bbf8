// What the live card tests share: the Paystack secret key the peer and the server agree on, the server's
// environment pointing its live card rail at a peer, and the checkout steps of a card payment (the card
// panel's email, then the redirect to the peer's page).
import type { PaystackPeer } from '../../peers/paystack/peer.js';

export const PAYSTACK_TEST_SECRET = 'sk_live_cowrie_test_0123456789';

export function cardEnv(peer: PaystackPeer, livePort: number, sandboxPort: number): Record<string, string> {
  return {
    COWRIE_LIVE_PORT: String(livePort),
    COWRIE_SANDBOX_PORT: String(sandboxPort),
    COWRIE_PAYSTACK_BASE_URL: peer.url,
    COWRIE_PAYSTACK_SECRET_KEY: PAYSTACK_TEST_SECRET,
  };
}

/** The peer's webhooks go to the live listener on this port. */
export function pointWebhooksAt(peer: PaystackPeer, livePort: number): void {
  peer.webhookUrl = `http://127.0.0.1:${livePort}/rails/paystack/webhook`;
}
