// moveIntent itself (src/modules/payment-intents/state-machine.ts): illegal moves and event types, stale
// rows and rollbacks write nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentIntentRow } from '../src/db/schema.js';
import { transaction } from '../src/db/transaction.js';
import {
  IllegalIntentMove,
  INTENT_MOVES,
  IntentMoveConflict,
  moveIntent,
  recordIntentEventInPlace,
} from '../src/modules/payment-intents/index.js';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import { STATUSES, ev, machine } from './helpers/state-machine.js';

describe(`payment intent state machine (${ENGINE})`, () => {
  let s: TestServer;
  /** Moves (from>to:event) and in-place events (event@status) seen in the events table. */
  const covered = new Set<string>();

  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => s?.stop());

  const { db, ctx, create, row, eventCount, expectHistory } = machine(() => s, covered);

  describe('moveIntent', () => {
    it('throws IllegalIntentMove for every move outside the table and writes nothing', async () => {
      const pi = await create();
      const real = await row(pi.id);
      const before = await eventCount();
      let checked = 0;
      for (const from of STATUSES) {
        for (const to of STATUSES) {
          if (INTENT_MOVES[from][to]) continue;
          const stale: PaymentIntentRow = { ...real, status: from };
          const err = await transaction(db(), (tx) => moveIntent(tx, ctx(), stale, to, { at: Date.now() })).then(
            () => null,
            (e: unknown) => e,
          );
          expect(err, `${from} -> ${to}`).toBeInstanceOf(IllegalIntentMove);
          expect((err as IllegalIntentMove).from).toBe(from);
          expect((err as IllegalIntentMove).to).toBe(to);
          checked++;
        }
      }
      expect(checked).toBe(64 - 9);
      expect(await row(pi.id)).toEqual(real);
      expect(await eventCount()).toBe(before);
    });

    it('throws IllegalIntentMove for an event type the move does not allow', async () => {
      const pi = await create();
      const real = await row(pi.id);
      const before = await eventCount();
      for (const [to, type] of [
        ['cancelled', ev('paid')],
        ['confirming', ev('paid')],
        ['failed', ev('cancelled')],
        ['expired', ev('review')],
      ] as const) {
        await expect(
          transaction(db(), (tx) => moveIntent(tx, ctx(), real, to, { at: Date.now(), eventType: type })),
        ).rejects.toBeInstanceOf(IllegalIntentMove);
      }
      expect(await row(pi.id)).toEqual(real);
      expect(await eventCount()).toBe(before);
    });

    it('refuses in-place events outside INTENT_EVENTS_IN_PLACE', async () => {
      const pi = await create();
      const real = await row(pi.id);
      const before = await eventCount();
      for (const [status, type] of [
        ['paid', ev('underpaid')],
        ['awaiting_payment', ev('overpaid')],
        ['awaiting_payment', ev('duplicate_payment')],
        ['refunded', ev('disputed')],
        ['confirming', ev('disputed')],
        ['paid', ev('paid')],
      ] as const) {
        await expect(
          transaction(db(), (tx) => recordIntentEventInPlace(tx, ctx(), { ...real, status }, type, Date.now())),
        ).rejects.toBeInstanceOf(IllegalIntentMove);
      }
      expect(await eventCount()).toBe(before);
    });

    it('throws IntentMoveConflict for a stale row and changes nothing', async () => {
      const pi = await create();
      const stale = await row(pi.id);
      expect((await s.sandbox('POST', `/payment-intents/${pi.id}/cancel`)).status).toBe(200);
      const after = await row(pi.id);
      const before = await eventCount();
      await expect(transaction(db(), (tx) => moveIntent(tx, ctx(), stale, 'confirming', { at: Date.now() }))).rejects.toBeInstanceOf(
        IntentMoveConflict,
      );
      await expect(transaction(db(), (tx) => moveIntent(tx, ctx(), stale, 'expired', { at: Date.now() }))).rejects.toBeInstanceOf(
        IntentMoveConflict,
      );
      expect(await row(pi.id)).toEqual(after);
      expect(after.status).toBe('cancelled');
      expect(await eventCount()).toBe(before);
      await expectHistory(pi.id, [
        ['created', 'awaiting_payment'],
        ['cancelled', 'cancelled'],
      ]);
    });

    it('rolls the move back with its transaction: no status change without its event and vice versa', async () => {
      const pi = await create();
      const real = await row(pi.id);
      const before = await eventCount();
      await expect(
        transaction(db(), async (trx) => {
          await moveIntent(trx, ctx(), real, 'failed', { at: Date.now() });
          throw new Error('abort');
        }),
      ).rejects.toThrow('abort');
      expect(await row(pi.id)).toEqual(real);
      expect(await eventCount()).toBe(before);
    });
  });
});
