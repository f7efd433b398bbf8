// Identifiers: a known prefix and 24 base62 characters, the first 8 the creation time, the other 16 random
// (db-layer.test.ts checks their order by time); and the base62 helpers used for secrets and id prefixes.
import { describe, expect, it } from 'vitest';
import { ID_PREFIXES, isIdOf, newId, randomBase62, timeBase62 } from '../src/shared/ids.js';

describe('ids', () => {
  it('are the kind prefix, an underscore and 24 base62 characters, for every kind', () => {
    for (const [kind, prefix] of Object.entries(ID_PREFIXES) as Array<[keyof typeof ID_PREFIXES, string]>) {
      const id = newId(kind);
      expect(id).toMatch(new RegExp(`^${prefix}_[0-9A-Za-z]{24}$`));
      expect(isIdOf(kind, id)).toBe(true);
    }
  });

  it('are all different, with random parts spread over the whole alphabet', () => {
    const ids = Array.from({ length: 20_000 }, () => newId('event'));
    expect(new Set(ids).size).toBe(ids.length);
    const counts = new Map<string, number>();
    for (const id of ids) for (const c of id.slice(12)) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(62);
    // 20,000 × 16 characters over 62 symbols: about 5,161 each; a biased draw would be far off.
    for (const n of counts.values()) expect(Math.abs(n - 5161)).toBeLessThan(500);
  });

  it('timeBase62 writes 8 digits in order; randomBase62 any length', () => {
    expect(timeBase62(0)).toBe('00000000');
    expect(timeBase62(61)).toBe('0000000z');
    expect(timeBase62(62)).toBe('00000010');
    expect(timeBase62(1_700_000_000_000) < timeBase62(1_700_000_000_001)).toBe(true);
    for (const n of [1, 16, 40, 64]) expect(randomBase62(n)).toMatch(new RegExp(`^[0-9A-Za-z]{${n}}$`));
  });
});
