// Imported first by the command line, before anything else allocates (so it reads its one variable
// itself rather than through config.ts, which loads later). V8's default heap policy favours throughput:
// under a high allocation rate (a long CSV export) it grows the young generation to 2 x 16 MB and lets
// promoted garbage pile up in the old one before its first full collection, tens of megabytes of resident
// memory that a streaming server never needs. Two settings keep a 100,000-row export under 150 MB
// (bench/reports.ts; measured on 2026-11-26: 135 to 140 MB on SQLite; 157 to 169 MB without the second,
// 213 to 235 MB without the first):
// - `--optimize-for-size`, set here at run time, which makes V8 collect the old generation as it grows.
//   Set here, it covers every way the server is started; COWRIE_V8_DEFAULT_HEAP=1 leaves it out.
// - semi-spaces of at most 4 MB (`--max-semi-space-size=4`). V8 sizes the young generation when it starts,
//   so this one must be on node's command line: `npm start`, `npm run cli` and the `cowrie` binary's
//   first line pass it; a process manager that runs `node dist/cli/main.js` itself passes it too (or sets
//   NODE_OPTIONS=--max-semi-space-size=4). On SQLite it costs the create-intent path nothing: measured
//   alternately beside V8's 16 MB, 8,219 and 8,695 requests a second against 6,841 and 7,496 (a small young
//   generation stays in the CPU's caches), and on 2026-11-26 8,510 against 8,426 (medians of four rounds).
//   On PostgreSQL it costs about 6 %: 3,487 against 3,709 requests a second, 242 against 219 us of server
//   CPU per request (the same four rounds). A whole `--optimize-for-size` on the command line would cost
//   about 30 %.
import { setFlagsFromString } from 'node:v8';

if (process.env['COWRIE_V8_DEFAULT_HEAP'] !== '1') setFlagsFromString('--optimize-for-size');
