// Runs the PayPal peer on its own, to try live PayPal payments on a laptop:
//   npm run paypal-peer    (PAYPAL_PEER_PORT, default 4920)
// and start Cowrie with the COWRIE_PAYPAL_* values it prints. Its buyer page approves, declines or cancels.
import { startPaypalPeer } from './peer.js';

const env = process.env;
const clientId = env['PAYPAL_PEER_CLIENT_ID'] ?? 'peer-client-id';
const clientSecret = env['PAYPAL_PEER_CLIENT_SECRET'] ?? 'peer-client-secret';
const webhookId = env['PAYPAL_PEER_WEBHOOK_ID'] ?? 'PEERWEBHOOK01';
const livePort = env['COWRIE_LIVE_PORT'] ?? '4000';
const peer = await startPaypalPeer({
  port: Number(env['PAYPAL_PEER_PORT'] ?? 4920),
  clientId,
  clientSecret,
  webhookId,
  webhookUrl: env['PAYPAL_PEER_WEBHOOK_URL'] ?? `http://localhost:${livePort}/rails/paypal/webhook`,
});
process.stdout.write(
  [
    `PayPal peer listening on ${peer.url}; webhooks go to ${peer.webhookUrl}`,
    'Start Cowrie with:',
    `  COWRIE_PAYPAL_BASE_URL=${peer.url} COWRIE_PAYPAL_CLIENT_ID=${clientId} COWRIE_PAYPAL_CLIENT_SECRET=${clientSecret} COWRIE_PAYPAL_WEBHOOK_ID=${webhookId} npm start`,
    'Pay a live USD, EUR or GBP intent with PayPal: the peer’s page approves, approves with a declined card, or cancels.',
    '',
  ].join('\n'),
);
const stop = () => void peer.close().then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
