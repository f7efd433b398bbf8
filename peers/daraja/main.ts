// Runs the Daraja peer on its own, to try the live M-Pesa flow on a laptop:
//   npm run daraja-peer    (DARAJA_PEER_PORT, default 4900)
// and start Cowrie with the COWRIE_MPESA_* values it prints.
import { startDarajaPeer } from './peer.js';

const env = process.env;
const peer = await startDarajaPeer({
  port: Number(env['DARAJA_PEER_PORT'] ?? 4900),
  consumerKey: env['DARAJA_PEER_CONSUMER_KEY'] ?? 'peer-key',
  consumerSecret: env['DARAJA_PEER_CONSUMER_SECRET'] ?? 'peer-secret',
  shortcode: env['DARAJA_PEER_SHORTCODE'] ?? '174379',
  passkey: env['DARAJA_PEER_PASSKEY'] ?? 'peer-passkey',
  initiatorName: env['DARAJA_PEER_INITIATOR_NAME'] ?? 'peer-initiator',
  securityCredential: env['DARAJA_PEER_SECURITY_CREDENTIAL'] ?? 'peer-credential',
});
process.stdout.write(
  [
    `Daraja peer listening on ${peer.url}`,
    'Start Cowrie with:',
    `  COWRIE_MPESA_BASE_URL=${peer.url} COWRIE_MPESA_CONSUMER_KEY=${env['DARAJA_PEER_CONSUMER_KEY'] ?? 'peer-key'} \\`,
    `  COWRIE_MPESA_CONSUMER_SECRET=${env['DARAJA_PEER_CONSUMER_SECRET'] ?? 'peer-secret'} COWRIE_MPESA_SHORTCODE=${env['DARAJA_PEER_SHORTCODE'] ?? '174379'} \\`,
    `  COWRIE_MPESA_PASSKEY=${env['DARAJA_PEER_PASSKEY'] ?? 'peer-passkey'} \\`,
    `  COWRIE_MPESA_INITIATOR_NAME=${env['DARAJA_PEER_INITIATOR_NAME'] ?? 'peer-initiator'} COWRIE_MPESA_SECURITY_CREDENTIAL=${env['DARAJA_PEER_SECURITY_CREDENTIAL'] ?? 'peer-credential'} npm start`,
    'Phones: 254700000001 pays, …02 cancels (1032), …03 no funds (1), …04 times out (1037), …05 wrong PIN (2001); any other pays.',
    'Refunds: `cowrie refunds approve re_…` of a paid intent sends a reversal; its result comes back a moment later.',
    '',
  ].join('\n'),
);
const stop = () => void peer.close().then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
