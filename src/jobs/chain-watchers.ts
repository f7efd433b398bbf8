// Runs each configured network's chain watcher every COWRIE_CHAIN_POLL_MS, in the one process holding that
// network's lease (`chain-watch:<network>`), so that any number of worker processes watch each chain once;
// a holder that dies loses the lease when it runs out and another process takes over from the cursor in
// the database. A provider failing on every URL is logged and tried again at the next tick.
import type { Logger } from 'pino';
import type { Lease } from '../db/leases.js';
import type { ChainWatcher } from '../modules/rails/index.js';
import { startLeasedLoop, type JobRunner } from './time-jobs.js';

export function startChainWatchers(
  watchers: readonly ChainWatcher[],
  pollMs: number,
  logger: Logger,
  leaseFor: (network: string) => Lease,
): JobRunner {
  const runners = watchers.map((watcher) => {
    let failing = false;
    return startLeasedLoop({
      name: `chain-watch:${watcher.network}`,
      intervalMs: pollMs,
      logger,
      lease: leaseFor(watcher.network),
      work: async (keep) => {
        await watcher.tick(keep);
        if (failing) logger.info({ network: watcher.network }, 'chain watcher recovered');
        failing = false;
      },
      failed: (err) => {
        // Once per outage at warn, then quietly until it recovers.
        logger[failing ? 'debug' : 'warn']({ err, network: watcher.network }, 'chain watcher tick failed; trying again');
        failing = true;
      },
    });
  });
  return {
    async stop() {
      await Promise.all(runners.map((r) => r.stop()));
    },
  };
}
