// Runs the TRON peer (a local TronGrid) on its own, to try a live TRON wallet payment on a laptop:
//   npm run tron-peer    (TRON_PEER_PORT, default 4910)
// and start Cowrie with the COWRIE_CHAIN_TRON_* values it prints. The chain moves only when told, through
// the peer's control calls (POST /__peer/transfer, /__peer/mine), which it prints ready to paste.
import { startTronPeer, tronAddressFromSeed, TRON_SOLIDIFY_DEPTH, TRON_USDT } from './peer.js';

const env = process.env;
const peer = await startTronPeer({ port: Number(env['TRON_PEER_PORT'] ?? 4910) });
const payee = env['TRON_PEER_PAYEE'] ?? tronAddressFromSeed('cowrie tron payee');
const payer = tronAddressFromSeed('a tron customer');
const post = (method: string, body: string) => `curl -X POST ${peer.url}/__peer/${method} -H 'content-type: application/json' -d '${body}'`;
process.stdout.write(
  [
    `TRON peer (TronGrid's HTTP API) listening on ${peer.url}; USDT is ${TRON_USDT}`,
    'Start Cowrie with:',
    `  COWRIE_CHAIN_TRON_RPC_URLS=${peer.url} COWRIE_CHAIN_TRON_ADDRESS=${payee} npm start`,
    'Create a live intent settling in USDT with a verified merchant’s live key, open its checkout_url, choose TRON,',
    'then send the exact amount shown, in base units (6 decimals: 10.5 USDT is 10500000):',
    `  ${post('transfer', `{"from":"${payer}","to":"${payee}","value":"10500000"}`)}`,
    `and make it ${TRON_SOLIDIFY_DEPTH} blocks deep:`,
    `  ${post('mine', `{"n":${TRON_SOLIDIFY_DEPTH}}`)}`,
    'To send from a hot wallet (payouts), give its address tokens first:',
    `  ${post('fund', `{"contract":"${TRON_USDT}","address":"<hot wallet address>","value":"100000000"}`)}`,
    '',
  ].join('\n'),
);
const stop = () => void peer.close().then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
