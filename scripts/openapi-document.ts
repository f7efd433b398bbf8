// The server's OpenAPI document without starting a listener: the app is built on a throw-away SQLite file
// and asked for its document. Used to generate the SDK's types (scripts/generate-sdk-types.ts) and by the
// test that fails when the committed types drift from the document.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { lazySecretBox } from '../src/secrets-key.js';
import { buildServices } from '../src/services.js';

export async function openApiDocument(): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'cowrie-openapi-'));
  const config = loadConfig({ COWRIE_DATABASE_URL: `sqlite:${join(dir, 'doc.db')}`, COWRIE_METRICS_PORT: '0' });
  const database = openDatabase(config.databaseUrl);
  try {
    await migrateToLatest(database);
    const services = await buildServices(config, database, { logger: pino({ level: 'silent' }), secrets: lazySecretBox(config) });
    try {
      const app = await buildApp(services);
      await app.ready();
      const doc = app.swagger() as unknown as Record<string, unknown>;
      await app.close();
      // A plain JSON copy: the generator must see what a client downloading /v1/openapi.json sees.
      return JSON.parse(JSON.stringify(doc)) as Record<string, unknown>;
    } finally {
      await services.close();
    }
  } finally {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
