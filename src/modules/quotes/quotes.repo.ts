// The only SQL of quotes.
import type { QuoteRow } from '../../db/schema.js';
import type { Db } from '../../db/transaction.js';

export async function insertQuote(db: Db, row: QuoteRow): Promise<void> {
  await db.insertInto('quotes').values(row).execute();
}
