// Runs each payout sender every COWRIE_CHAIN_POLL_MS in the one process holding that network's lease
// (`payout-send:<network>`), so that of any number of worker processes one sends on each network; a holder
// that dies loses the lease when it runs out and another takes over from what the database recorded.
import type { Logger } from 'pino';
import type { Lease } from '../db/leases.js';
import type { PayoutSender } from '../modules/payouts/index.js';
import { startLeasedLoop, type JobRunner } from './time-jobs.js';

export function startPayoutSenders(
  senders: readonly PayoutSender[],
  pollMs: number,
  logger: Logger,
  leaseFor: (network: string) => Lease,
): JobRunner {
  const runners = senders.map((sender) =>
    startLeasedLoop({
      name: `payout-send:${sender.network}`,
      intervalMs: pollMs,
      logger,
      lease: leaseFor(sender.network),
      work: async (keep) => {
        await sender.runOnce(keep);
      },
      failed: (err) => logger.warn({ err, network: sender.network }, 'payout sender run failed; trying again'),
    }),
  );
  return {
    async stop() {
      await Promise.all(runners.map((r) => r.stop()));
    },
  };
}
