// isoTime formats the date and time of day once per second and writes the milliseconds per call: its text
// must be toISOString's for every instant, and the same errors where toISOString has them.
import { describe, expect, it } from 'vitest';
import { isoTime } from '../src/shared/clock.js';

describe('isoTime', () => {
  it("is toISOString's text for 20,000 random instants, the edges of each second and of the range", () => {
    const instants = [0, 1, 9, 10, 99, 100, 999, 1000, 1001, 253_402_300_799_999, 253_402_300_800_000, 8.64e15, -1, -62_198_755_200_000];
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 10_000; i++) instants.push(Math.floor(random() * 4_102_444_800_000));
    // Many calls within a few seconds, as a busy server makes them (the cached prefixes).
    const base = Date.UTC(2026, 11, 7, 23, 59, 58);
    for (let i = 0; i < 10_000; i++) instants.push(base + Math.floor(random() * 4000));
    for (const ms of instants) expect(isoTime(ms), String(ms)).toBe(new Date(ms).toISOString());
  });

  it('writes a fraction of a millisecond as toISOString does, and refuses what toISOString refuses', () => {
    expect(isoTime(1_796_682_772_303.7)).toBe(new Date(1_796_682_772_303.7).toISOString());
    expect(() => isoTime(Number.NaN)).toThrow(RangeError);
    expect(() => isoTime(8.64e15 + 1)).toThrow(RangeError);
  });
});
