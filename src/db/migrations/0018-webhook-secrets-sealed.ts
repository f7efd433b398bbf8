// Webhook endpoint secrets were stored in plain text; from here on they are stored sealed (AES-256-GCM,
// src/shared/secret-box.ts) with the operator's key. This seals the secrets already stored. It needs the
// keys only when there is a secret to seal: the caller passes the process's box (COWRIE_SECRETS_KEY, or
// the SQLite key file), which loads them on first use.
import type { Kysely, Migration } from 'kysely';
import { sealedKeyId, type SecretBox } from '../../shared/secret-box.js';

export function sealWebhookSecrets(secrets: SecretBox | null): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      const rows = (await db.selectFrom('webhook_endpoints').select(['id', 'secret']).execute()) as Array<{ id: string; secret: string }>;
      const plain = rows.filter((r) => sealedKeyId(r.secret) === null);
      if (plain.length === 0) return;
      if (!secrets) {
        throw new Error(`${plain.length} webhook endpoint secrets are to be sealed with the secrets key, which this command was not given`);
      }
      for (const row of plain) {
        await db
          .updateTable('webhook_endpoints')
          .set({ secret: secrets.seal(row.secret, row.id) })
          .where('id', '=', row.id)
          .execute();
      }
    },
    async down(db: Kysely<any>): Promise<void> {
      const rows = (await db.selectFrom('webhook_endpoints').select(['id', 'secret']).execute()) as Array<{ id: string; secret: string }>;
      const sealed = rows.filter((r) => sealedKeyId(r.secret) !== null);
      if (sealed.length > 0 && !secrets) throw new Error('opening the webhook endpoint secrets needs the secrets key');
      for (const row of sealed) {
        await db
          .updateTable('webhook_endpoints')
          .set({ secret: secrets!.open(row.secret, row.id) })
          .where('id', '=', row.id)
          .execute();
      }
    },
  };
}
