// Runs the Solana peer (a local Solana JSON-RPC node) on its own, to try a live Solana wallet payment on a
// laptop:
//   npm run solana-peer    (SOLANA_PEER_PORT, default 4920)
// and start Cowrie with the COWRIE_CHAIN_SOLANA_* values it prints. The chain moves only when told, through
// the peer's control calls (POST /__peer/transfer, /__peer/advance), which it prints ready to paste.
import { solanaAddressFromSeed, startSolanaPeer, SOLANA_FINALITY_DEPTH, SOLANA_USDT_MINT } from './peer.js';

const env = process.env;
const peer = await startSolanaPeer({ port: Number(env['SOLANA_PEER_PORT'] ?? 4920) });
const payee = env['SOLANA_PEER_PAYEE'] ?? solanaAddressFromSeed('cowrie solana payee');
const payer = solanaAddressFromSeed('a solana customer');
const post = (method: string, body: string) => `curl -X POST ${peer.url}/__peer/${method} -H 'content-type: application/json' -d '${body}'`;
process.stdout.write(
  [
    `Solana peer (JSON-RPC) listening on ${peer.url}; USDT's mint is ${SOLANA_USDT_MINT}`,
    'Start Cowrie with:',
    `  COWRIE_CHAIN_SOLANA_RPC_URLS=${peer.url} COWRIE_CHAIN_SOLANA_ADDRESS=${payee} npm start`,
    'Create a live intent settling in USDT with a verified merchant’s live key, open its checkout_url, choose Solana,',
    'then send the exact amount shown, in base units (6 decimals: 10.5 USDT is 10500000):',
    `  ${post('transfer', `{"mint":"${SOLANA_USDT_MINT}","fromOwner":"${payer}","toOwner":"${payee}","amount":"10500000"}`)}`,
    `and make it final (${SOLANA_FINALITY_DEPTH} slots):`,
    `  ${post('advance', `{"n":${SOLANA_FINALITY_DEPTH}}`)}`,
    'To send from a hot wallet (payouts), give its address tokens first:',
    `  ${post('mintTo', `{"owner":"<hot wallet address>","mint":"${SOLANA_USDT_MINT}","amount":"100000000"}`)}`,
    '',
  ].join('\n'),
);
const stop = () => void peer.close().then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
