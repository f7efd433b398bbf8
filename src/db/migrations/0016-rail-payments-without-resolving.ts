// Rail payments no longer pass through a `resolving` state: a rail payment's final state and its intent's
// move now commit together. An M-Pesa payment that a crash left `resolving` under the earlier code is
// pending again and due for a question at once, so that Daraja is asked and it is resolved exactly once;
// any other (a sandbox card or approval whose outcome never committed) is abandoned, as a customer who
// left, and the customer may pay again.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db
    .updateTable('rail_payments')
    .set((eb: any) => ({ state: 'pending', resolve_at: eb.ref('updated_at') }))
    .where('state', '=', 'resolving')
    .where('method', '=', 'mpesa')
    .where('environment', '=', 'live')
    .execute();
  await db.updateTable('rail_payments').set({ state: 'abandoned' }).where('state', '=', 'resolving').execute();
}

export async function down(): Promise<void> {
  // Nothing to undo: `pending` and `abandoned` were states before too.
}
