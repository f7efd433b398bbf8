// Imported first by the command line, before anything else allocates (so it reads its one variable
// itself rather than through config.ts, which loads later). V8's default heap policy favours throughput:
// under a high allocation rate (a long CSV export) it grows the young generation to 2 x 16 MB and lets
// promoted garbage pile up in the old one before its first full collection, tens of megabytes of resident
// memory that a streaming server never needs. Two settings keep a 100,000-row export under 150 MB
// (bench/reports.ts; bench/README.md has what each setting saves and what it costs):
// - `--optimize-for-size`, set here at run time, which makes V8 collect the old generation as it grows.
//   Set here, it covers every way the server is started; COWRIE_V8_DEFAULT_HEAP=1 leaves it out. Set on
//   node's command line instead, the whole flag would also slow the request path markedly.
// - semi-spaces of at most 4 MB (`--max-semi-space-size=4`). V8 sizes the young generation when it starts,
//   so this one must be on node's command line: `npm start`, `npm run cli` and the `cowrie` binary's
//   first line pass it; a process manager that runs `node dist/cli/main.js` itself passes it too (or sets
//   NODE_OPTIONS=--max-semi-space-size=4). The create-intent path loses nothing by it on SQLite (a small
//   young generation stays in the CPU's caches) and a little on PostgreSQL.
import { setFlagsFromString } from 'node:v8';

if (process.env['COWRIE_V8_DEFAULT_HEAP'] !== '1') setFlagsFromString('--optimize-for-size');
