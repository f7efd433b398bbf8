// Leases: a named piece of work (the watcher of one chain, say) that one process at a time may do, among
// every process sharing the database. A holder keeps its lease by renewing it before it runs out; a
// holder that dies loses it when it runs out, and another takes it over. Real time, whatever the
// merchants' sandbox clocks say.
import { systemClock, type Clock } from '../shared/clock.js';
import type { Db } from './transaction.js';

export class Lease {
  constructor(
    private readonly db: Db,
    readonly name: string,
    /** Who holds it: unique per process and start (a random id). */
    readonly holder: string,
    readonly ttlMs: number,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Takes the lease when it is free or has run out, or renews it when this holder has it; true when held. */
  async acquire(): Promise<boolean> {
    const now = this.clock.nowMs();
    const res = await this.db
      .insertInto('leases')
      .values({ name: this.name, holder: this.holder, expires_at: now + this.ttlMs })
      .onConflict((oc) =>
        oc
          .column('name')
          .doUpdateSet({ holder: this.holder, expires_at: now + this.ttlMs })
          .where((eb) => eb.or([eb('leases.holder', '=', this.holder), eb('leases.expires_at', '<=', now)])),
      )
      .executeTakeFirst();
    return Number(res.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  /** Lets go at once (another process may take it now); nothing when another holds it. */
  async release(): Promise<void> {
    await this.db.deleteFrom('leases').where('name', '=', this.name).where('holder', '=', this.holder).execute();
  }
}
