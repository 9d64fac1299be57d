import { describe, expect, it } from 'vitest';
import { parseWorkload, zipfSequence } from './workload.ts';

describe('bench workloads', () => {
  it('draws a seeded Zipf sequence: the same every time, the top ranks most of it', () => {
    const a = zipfSequence(10_000, 1.1, 50_000, 3);
    expect(zipfSequence(10_000, 1.1, 50_000, 3)).toEqual(a);
    const counts = new Map<number, number>();
    for (const rank of a) counts.set(rank, (counts.get(rank) ?? 0) + 1);
    // With exponent 1.1 over 10,000 ranks, rank 0 is ~14 % of draws and rank 1 about half as many.
    expect((counts.get(0) ?? 0) / a.length).toBeGreaterThan(0.11);
    expect((counts.get(0) ?? 0) / a.length).toBeLessThan(0.17);
    expect((counts.get(1) ?? 0) / (counts.get(0) ?? 1)).toBeCloseTo(0.47, 1);
    expect(Math.max(...a)).toBeLessThan(10_000);
  });

  it('reads --workload, refusing unknown values', () => {
    expect(parseWorkload([])).toBe('uniform');
    expect(parseWorkload(['--workload', 'zipf'])).toBe('zipf');
    expect(parseWorkload(['--workload=uniform'])).toBe('uniform');
    expect(parseWorkload(['--workload', 'descriptions'])).toBe('descriptions');
    expect(() => parseWorkload(['--workload', 'bursty'])).toThrow(/uniform, zipf or descriptions/);
  });
});
