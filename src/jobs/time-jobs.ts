// Background jobs that follow the clock: the expiry sweep and settlement maturing. They run every
// COWRIE_JOB_INTERVAL_MS in every server process (each step is idempotent and row-locked, so processes can
// overlap), and a sandbox clock advance runs them at once for that merchant.
import type { Logger } from 'pino';
import type { Db } from '../db/transaction.js';
import type { MerchantClocks } from '../shared/clock.js';
import type { MerchantScope } from '../shared/scope.js';
import type { IntentService } from '../modules/payment-intents/index.js';
import { matureDueSettlements } from '../modules/settlements/index.js';

/** Runs every time-based job once, for every merchant or for one merchant's environment. */
export type RunTimeJobs = (scope?: Partial<MerchantScope>) => Promise<void>;

export function timeJobs(deps: { db: Db; clocks: MerchantClocks; intents: IntentService }): RunTimeJobs {
  return async (scope = {}) => {
    await deps.intents.expireOverdue(scope);
    await matureDueSettlements(deps.db, deps.clocks, scope);
  };
}

export interface JobRunner {
  stop(): Promise<void>;
}

export function startTimeJobs(run: RunTimeJobs, intervalMs: number, logger: Logger): JobRunner {
  let running: Promise<void> | null = null;
  let stopped = false;
  const tick = () => {
    if (running || stopped) return;
    running = run()
      .catch((err: unknown) => logger.error({ err }, 'time jobs failed'))
      .finally(() => {
        running = null;
      });
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  tick();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
