// The only SQL of the hosted checkout: its anti-forgery key.
import { randomBytes } from 'node:crypto';
import type { Db } from '../../db/transaction.js';

/** The per-database key of the checkout's anti-forgery tokens, created on first use. */
export async function loadCheckoutSecret(db: Db, nowMs: number): Promise<Buffer> {
  const read = () => db.selectFrom('checkout_secrets').select('secret').where('id', '=', 'csrf').executeTakeFirst();
  let row = await read();
  if (!row) {
    await db
      .insertInto('checkout_secrets')
      .values({ id: 'csrf', secret: randomBytes(32).toString('hex'), created_at: nowMs })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
    row = await read();
  }
  return Buffer.from(row!.secret, 'hex');
}
