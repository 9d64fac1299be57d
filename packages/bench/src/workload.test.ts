import { describe, expect, it } from 'vitest';
import { foldKey } from '@fragrance/contracts';
import { distinctRequests, parseWorkload, zipfSequence, type KnownItem } from './workload.ts';

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
    expect(parseWorkload(['--workload', 'distinct'])).toBe('distinct');
    expect(() => parseWorkload(['--workload', 'bursty'])).toThrow(/uniform, zipf, descriptions or distinct/);
    expect(() => parseWorkload(['--workload'])).toThrow(/not true/);
  });

  it('distinct: known-item texts that name their record, no request target twice, seeded', () => {
    const records: KnownItem[] = [
      { id: 'a', name: 'Sauvage', brand: 'Dior' },
      { id: 'b', name: "L'Eau d'Issey", brand: 'Issey Miyake' },
      { id: 'c', name: 'Sauvage', brand: 'Dior' }, // the same texts again: each kept once
      { id: 'd', name: 'Sauvage', brand: 'Mancera' }, // a shared name: its brand forms are new
      { id: 'e', name: 'Rose Œillet', brand: 'Maison Francis Kurkdjian' },
      ...Array.from({ length: 2_000 }, (_, i) => ({ id: `r${i}`, name: `Accord ${i}`, brand: `House ${i % 37}` })),
    ];
    const requests = distinctRequests(records, 5);
    expect(distinctRequests(records, 5)).toEqual(requests);
    const targets = requests.map((r) => `/v1/fragrances?${new URLSearchParams({ query: r.query, limit: String(r.limit) }).toString()}`);
    expect(new Set(targets).size).toBe(targets.length);
    expect(new Set(requests.map((r) => r.query)).size).toBe(requests.length);
    // Three forms of 2,004 distinct (name, brand) pairs, less 'sauvage' named alone twice.
    expect(requests).toHaveLength(3 * 2_004 - 1);
    const byId = new Map(records.map((r) => [r.id, r]));
    for (const request of requests) {
      const record = byId.get(request.id)!;
      expect(request.query).toBe(foldKey(request.query)); // as typed: lower case, no punctuation
      expect(request.query).toContain(foldKey(record.name));
      if (request.form !== 'name') expect(request.query).toContain(foldKey(record.brand));
      expect([10, 20]).toContain(request.limit);
    }
    expect(requests.filter((r) => r.id === 'c')).toEqual([]);
    expect(requests.filter((r) => r.id === 'd').map((r) => r.query)).toEqual(
      expect.arrayContaining(['mancera sauvage', 'sauvage mancera']),
    );
    expect(requests.find((r) => r.id === 'b' && r.form === 'name')?.query).toBe('l eau d issey');
    // Shuffled: the forms are mixed along the stream, not one after the other.
    expect(new Set(requests.slice(0, 100).map((r) => r.form)).size).toBe(3);
  });
});
