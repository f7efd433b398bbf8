// Runs local price sources on their own, to try live reference prices on a laptop:
//   npm run rates-peer    (RATES_PEER_PORT, default 4920; RATES_PEER_COUNT sources on the ports from it, default 3)
// and start Cowrie with the COWRIE_RATES_* values it prints. Each source starts at the shipped table's
// prices; the control calls it prints move one source's prices (to see the median, and a source more than
// 2 % from it left out), make one answer late or fail.
import { startRatesPeer, type RatesPeer } from './peer.js';

const env = process.env;
const first = Number(env['RATES_PEER_PORT'] ?? 4920);
const count = Math.max(1, Number(env['RATES_PEER_COUNT'] ?? 3));
const peers: RatesPeer[] = [];
for (let i = 0; i < count; i++) peers.push(await startRatesPeer({ port: first + i }));
const post = (peer: RatesPeer, method: string, body: string) =>
  `curl -X POST ${peer.url}/__peer/${method} -H 'content-type: application/json' -d '${body}'`;
const last = peers[peers.length - 1]!;
process.stdout.write(
  [
    `${count} price source${count === 1 ? '' : 's'} (Coinbase's exchange-rates protocol) listening on ${peers.map((p) => p.url).join(', ')}`,
    'Start Cowrie with:',
    `  COWRIE_RATES_SOURCE=http COWRIE_RATES_URLS=${peers.map((p) => p.url).join(',')} COWRIE_RATES_REFRESH_S=5 COWRIE_RATES_MAX_AGE_S=60 npm start`,
    'Move the market (every price of every source up 1 %):',
    ...peers.map((p) => `  ${post(p, 'scale', '["1.01"]')}`),
    'Make one source 5 % off (left out of the median), or set one price (a malformed one is skipped and logged):',
    `  ${post(last, 'scale', '["1.05","USDT"]')}`,
    `  ${post(last, 'setPrice', '["USDT","KES","-1"]')}`,
    'Make a source late (past the 5 s limit) or failing, then back to normal:',
    `  ${post(last, 'setDelay', '[6000]')}`,
    `  ${post(last, 'setMode', '["error"]')}    (modes: ok, error, not_json, wrong_currency, no_data)`,
    `  ${post(last, 'reset', '[]')}`,
    'Stop every source for longer than COWRIE_RATES_MAX_AGE_S and new intents answer 503 rates_unavailable.',
    '',
  ].join('\n'),
);
const stop = () => void Promise.all(peers.map((p) => p.close())).then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
