// The stored signing secrets as a whole: the check at start that this process can open every one of them,
// and the rotation that seals them all under a new key in one transaction.
import { transaction, type Db } from '../../db/transaction.js';
import { SecretsKeyError, sealedKeyId, type SecretBox } from '../../shared/secret-box.js';
import { lockAllSecrets, secretBeginnings, setStoredSecret } from './endpoints.repo.js';
import { SECRET_PREFIX } from './signing.js';

/** A sealed value's beginning up to its key id: `v1:` and 16 hex digits and `:`. */
const SEALED_HEAD = 20;

/**
 * Refuses to go on when a stored secret was sealed with a key this process does not have (it was started
 * with the wrong key), or is still plain text (written by an older version after the upgrade).
 */
export async function checkEndpointSecrets(db: Db, box: SecretBox): Promise<void> {
  const beginnings = await secretBeginnings(db, SEALED_HEAD);
  const ids = beginnings.map(sealedKeyId);
  const known = box.keyIds();
  const unknown = [...new Set(ids.filter((id): id is string => id !== null && !known.includes(id)))];
  if (unknown.length > 0) {
    throw new SecretsKeyError(
      `webhook endpoint secrets in the database were sealed with key ${unknown.join(', ')}, which this process does not ` +
        `have (it has ${known.join(', ')}). Start it with the key they were sealed with: COWRIE_SECRETS_KEY (during a ` +
        `rotation, the new key and the old ones, comma-separated) or, on SQLite without it, the key file.`,
    );
  }
  if (ids.includes(null)) {
    throw new SecretsKeyError(
      'some webhook endpoint secrets are stored in plain text (written by an older version after this database was ' +
        'upgraded). Stop every older process, then run `cowrie secrets rotate` to seal them.',
    );
  }
}

/**
 * Seals every stored secret, deleted endpoints' included, with `to`'s sealing key, opening each with
 * `from`; a secret still in plain text is sealed as it is. One transaction: when any secret does not
 * open, nothing changes.
 */
export async function resealEndpointSecrets(db: Db, from: SecretBox, to: SecretBox): Promise<{ resealed: number; plain: number }> {
  return transaction(db, async (tx) => {
    let plain = 0;
    const rows = await lockAllSecrets(tx);
    for (const row of rows) {
      let secret: string;
      if (sealedKeyId(row.secret) !== null) secret = from.open(row.secret, row.id);
      else if (row.secret.startsWith(SECRET_PREFIX)) {
        secret = row.secret;
        plain++;
      } else throw new SecretsKeyError(`the stored secret of ${row.id} is neither sealed nor a signing secret`);
      await setStoredSecret(tx, row.id, to.seal(secret, row.id));
    }
    return { resealed: rows.length, plain };
  });
}
