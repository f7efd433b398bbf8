// Console passwords and PINs: scrypt at the operator's cost (COWRIE_PASSWORD_HASH_COST, default 2^15); the
// stored form names its cost, so hashes made at one cost verify after the cost changes.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { hashSecret, verifySecret } from '../src/shared/passwords.js';

describe('password hashing cost', () => {
  it('is 2^15 unless the operator says otherwise, and only 10 to 20 is accepted', () => {
    expect(loadConfig({}).passwordHashCost).toBe(15);
    expect(loadConfig({ COWRIE_PASSWORD_HASH_COST: '12' }).passwordHashCost).toBe(12);
    for (const bad of ['9', '21', 'x', '12.5']) {
      expect(() => loadConfig({ COWRIE_PASSWORD_HASH_COST: bad })).toThrow(ConfigError);
    }
  });

  it('hashes at the given cost and names it; a hash verifies whatever the cost is now', async () => {
    const strong = await hashSecret('correct horse battery');
    expect(strong).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    const light = await hashSecret('correct horse battery', 10);
    expect(light).toMatch(/^scrypt\$1024\$8\$1\$/);
    expect(await verifySecret('correct horse battery', strong)).toBe(true);
    expect(await verifySecret('correct horse battery', light)).toBe(true);
    expect(await verifySecret('correct horse batterY', light)).toBe(false);
    expect(await verifySecret('correct horse battery', 'scrypt$1024$8$1$bad')).toBe(false);
  });
});
