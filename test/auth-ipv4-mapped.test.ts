// IP allowlists against IPv4-mapped socket addresses (an IPv4-mapped IPv6 address counts
// as its IPv4 form), where this machine can listen on one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import { MAPPED_LISTEN_OK } from './helpers/auth.js';
import { expectError, SERVICE_VERSION } from './helpers/expect.js';

describe.skipIf(!MAPPED_LISTEN_OK)(`IP allowlist with IPv4-mapped socket addresses (${ENGINE})`, () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ env: { COWRIE_HOST: '::ffff:127.0.0.1' } });
  });
  afterAll(async () => s?.stop());

  it('matches IPv4 entries against the mapped address', async () => {
    const merchantId = s.merchant.merchant.id;
    const cases: Array<[string[], boolean]> = [
      [['127.0.0.0/8'], true],
      [['127.0.0.1'], true],
      [['::ffff:127.0.0.1'], true],
      [['10.0.0.0/8'], false],
      [['::1'], false],
    ];
    for (const [allowedIps, allowed] of cases) {
      const key = await s.newKey({ merchantId, environment: 'live', type: 'secret', allowedIps });
      const verify = await s.call('live', 'GET', '/auth/verify', { key: key.key });
      expect(verify.status, allowedIps.join(',')).toBe(200);
      expect(verify.json.ip_allowed, allowedIps.join(',')).toBe(allowed);
      const list = await s.call('live', 'GET', '/customers', { key: key.key });
      if (allowed) expect(list.status, allowedIps.join(',')).toBe(200);
      else expectError(list, 403, 'ip_not_allowed', null, { environment: 'live', label: allowedIps.join(','), version: SERVICE_VERSION });
    }
  });
});
