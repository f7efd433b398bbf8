// Imported first by the command line, before anything else allocates (so it reads its one variable
// itself rather than through config.ts, which loads later). V8's default heap policy favours throughput:
// under a high allocation rate (a long CSV export) it grows the young generation to 3 x 16 MB and lets
// promoted garbage pile up in the old one before its first full collection, tens of megabytes of resident
// memory that a streaming server never needs. `--optimize-for-size` keeps the young generation small and
// collects the old one as it grows: a 100,000-row export stays under 150 MB. It costs about a tenth of
// the create-intent throughput in `npm run bench`; COWRIE_V8_DEFAULT_HEAP=1 keeps V8's defaults for an
// operator who prefers that. Setting it at run time (rather than on node's command line) covers every way
// the server is started: `npm start`, the `cowrie` binary and a process manager calling
// `node dist/cli/main.js`.
import { setFlagsFromString } from 'node:v8';

if (process.env['COWRIE_V8_DEFAULT_HEAP'] !== '1') setFlagsFromString('--optimize-for-size');
