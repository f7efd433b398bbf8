// Runs the Paystack peer on its own, to try live card payments on a laptop:
//   npm run paystack-peer    (PAYSTACK_PEER_PORT, default 4910)
// and start Cowrie with the COWRIE_PAYSTACK_* values it prints. Its hosted page lets you pick the outcome.
import { startPaystackPeer } from './peer.js';

const env = process.env;
const secretKey = env['PAYSTACK_PEER_SECRET_KEY'] ?? 'sk_live_peer_secret';
const livePort = env['COWRIE_LIVE_PORT'] ?? '4000';
const peer = await startPaystackPeer({
  port: Number(env['PAYSTACK_PEER_PORT'] ?? 4910),
  secretKey,
  webhookUrl: env['PAYSTACK_PEER_WEBHOOK_URL'] ?? `http://localhost:${livePort}/rails/paystack/webhook`,
});
process.stdout.write(
  [
    `Paystack peer listening on ${peer.url}; webhooks go to ${peer.webhookUrl}`,
    'Start Cowrie with:',
    `  COWRIE_PAYSTACK_BASE_URL=${peer.url} COWRIE_PAYSTACK_SECRET_KEY=${secretKey} npm start`,
    'Pay a live KES or USD intent by card: the peer’s page offers success, decline, insufficient funds and cancel.',
    '',
  ].join('\n'),
);
const stop = () => void peer.close().then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
