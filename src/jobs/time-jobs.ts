// Background jobs that follow the clock: rail questions, the expiry sweep and settlement maturing. They run every
// COWRIE_JOB_INTERVAL_MS in the process holding the `time-jobs` lease (each step is also idempotent and
// row-locked, so an overlap at a hand-over changes nothing), and a sandbox clock advance runs them at once
// for that merchant.
import type { Logger } from 'pino';
import type { Db } from '../db/transaction.js';
import type { Lease } from '../db/leases.js';
import type { MerchantClocks } from '../shared/clock.js';
import type { MerchantScope } from '../shared/scope.js';
import type { IntentService, RailRegistry } from '../modules/payment-intents/index.js';
import { matureDueSettlements } from '../modules/settlements/index.js';
import { askDueRailPayments } from '../modules/rails/index.js';
import type { RefundDecisions } from '../modules/refunds/index.js';
import type { PayoutService } from '../modules/payouts/index.js';

/** Runs every time-based job once, for every merchant or for one merchant's environment. */
export type RunTimeJobs = (scope?: Partial<MerchantScope>) => Promise<void>;

export function timeJobs(deps: {
  db: Db;
  clocks: MerchantClocks;
  intents: IntentService;
  rails?: RailRegistry;
  refunds?: Pick<RefundDecisions, 'askDue'>;
  payouts?: Pick<PayoutService, 'payDueSandboxPayouts'>;
  /** Payers' M-Pesa top-ups waiting for Daraja's answer. */
  payerTopups?: { askDue(): Promise<number> } | null;
}): RunTimeJobs {
  return async (scope = {}) => {
    // Rail questions first: an answer that came due may pay an intent that would otherwise expire.
    if (deps.rails) await askDueRailPayments(deps.db, deps.rails, deps.clocks.base.nowMs());
    await deps.payerTopups?.askDue();
    await deps.refunds?.askDue();
    await deps.intents.expireOverdue(scope);
    await matureDueSettlements(deps.db, deps.clocks, scope);
    await deps.payouts?.payDueSandboxPayouts(scope.merchantId === undefined ? {} : { merchantId: scope.merchantId });
  };
}

export interface JobRunner {
  stop(): Promise<void>;
}

/**
 * Runs `work` every `intervalMs`, one run at a time. With a lease, a tick runs it only while this process
 * holds the lease (taken or renewed at each tick), so that among several worker processes one runs it at a
 * time; `keep` renews it during a long run and says whether it is still held (and the loop not stopped).
 * A holder that dies loses the lease when it runs out, and stop hands it back at once. A failed run is
 * given to `failed` and the next tick tries again.
 */
export function startLeasedLoop(opts: {
  name: string;
  intervalMs: number;
  logger: Logger;
  lease?: Lease;
  work: (keep: () => Promise<boolean>) => Promise<void>;
  failed: (err: unknown) => void;
}): JobRunner {
  const { lease, logger } = opts;
  let running: Promise<void> | null = null;
  let stopped = false;
  const keep = async () => !stopped && (!lease || (await lease.acquire()));
  const once = async () => {
    if (lease && !(await lease.acquire())) return;
    await opts.work(keep);
  };
  const tick = () => {
    if (running || stopped) return;
    running = once()
      .catch(opts.failed)
      .finally(() => {
        running = null;
      });
  };
  const timer = setInterval(tick, opts.intervalMs);
  timer.unref();
  tick();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
      await lease?.release().catch((err: unknown) => logger.warn({ err }, `releasing the ${opts.name} lease failed`));
    },
  };
}

/** Runs the time-based jobs every `intervalMs`, under the `time-jobs` lease when given one. */
export function startTimeJobs(run: RunTimeJobs, intervalMs: number, logger: Logger, lease?: Lease): JobRunner {
  return startLeasedLoop({
    name: 'time-jobs',
    intervalMs,
    logger,
    lease,
    work: () => run(),
    failed: (err) => logger.error({ err }, 'time jobs failed'),
  });
}
