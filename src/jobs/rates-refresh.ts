// Fetches the live reference prices every COWRIE_RATES_REFRESH_S (at once on start), in the one process
// holding the `rates-refresh` lease, so that any number of worker processes call the price sources once;
// the others read what it writes (every process's book reads the database every second). A holder that
// dies loses the lease when it runs out and another process takes over; a refresh that fails is logged and
// the next tick tries again.
import type { Logger } from 'pino';
import type { Lease } from '../db/leases.js';
import type { RateRefresher } from '../modules/rates/index.js';
import { startLeasedLoop, type JobRunner } from './time-jobs.js';

/** How long the refresh lease lasts: two refreshes and the longest call's time limit, with room to spare. */
export function ratesLeaseMs(refreshMs: number): number {
  return refreshMs * 2 + 10_000;
}

export function startRatesRefresh(refresher: RateRefresher, refreshMs: number, logger: Logger, lease: Lease): JobRunner {
  return startLeasedLoop({
    name: 'rates-refresh',
    intervalMs: refreshMs,
    logger,
    lease,
    work: async () => {
      await refresher.refresh();
    },
    failed: (err) => logger.error({ err }, 'reference price refresh failed; trying again at the next refresh'),
  });
}
