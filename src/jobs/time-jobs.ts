// Background jobs that follow the clock. They run every COWRIE_JOB_INTERVAL_MS in every server process
// (each step is idempotent and row-locked, so processes can overlap), and a sandbox clock advance runs
// them at once for that merchant.
import type { Logger } from 'pino';
import { expireOverdueIntents, type IntentContext } from '../modules/payment-intents/index.js';
import { matureDueSettlements } from '../modules/settlements/index.js';

export async function runTimeJobs(ctx: IntentContext, scope: { merchantId?: string; environment?: 'live' | 'test' } = {}): Promise<void> {
  await expireOverdueIntents(ctx, scope);
  await matureDueSettlements(ctx.db, ctx.clock, scope);
}

export interface JobRunner {
  stop(): Promise<void>;
}

export function startTimeJobs(ctx: IntentContext, intervalMs: number, logger: Logger): JobRunner {
  let running: Promise<void> | null = null;
  let stopped = false;
  const tick = () => {
    if (running || stopped) return;
    running = runTimeJobs(ctx)
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
