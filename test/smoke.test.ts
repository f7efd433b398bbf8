import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';

describe(`smoke (${ENGINE})`, () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => s?.stop());

  it('verifies the sandbox key', async () => {
    const r = await s.sandbox('GET', '/auth/verify');
    expect(r.status).toBe(200);
    expect(r.json.merchant_id).toBe(s.merchant.merchant.id);
  });
});
