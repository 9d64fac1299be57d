import { describe, expect, it } from 'vitest';
import { Rng, weightedTable } from './rng.ts';

describe('Rng', () => {
  it('repeats its sequence for a seed and differs across seeds, even neighbouring ones', () => {
    const draw = (seed: number) => {
      const rng = Rng.fromSeed(seed);
      return Array.from({ length: 20 }, () => rng.int(0, 1_000_000));
    };
    expect(draw(1)).toEqual(draw(1));
    expect(draw(1)).not.toEqual(draw(2));
    // Neighbouring seeds must not share early values.
    const a = new Set(draw(1));
    expect(draw(2).filter((x) => a.has(x)).length).toBeLessThan(3);
  });

  it('makes v4-format UUIDs', () => {
    const rng = Rng.fromSeed(9);
    const ids = Array.from({ length: 1000 }, () => rng.uuid());
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('forks an independent stream without moving the parent', () => {
    const parent = Rng.fromSeed(5);
    const twin = Rng.fromSeed(5);
    const child = parent.fork();
    const fromParent = Array.from({ length: 5 }, () => parent.float());
    expect(fromParent).toEqual(Array.from({ length: 5 }, () => twin.float()));
    expect(Array.from({ length: 5 }, () => child.float())).not.toEqual(fromParent);
  });

  it('picks by weight, from plain lists and from tables', () => {
    const rng = Rng.fromSeed(3);
    const table = weightedTable(['a', 'b', 'c'] as const, [1, 0, 3]);
    const counts = { a: 0, b: 0, c: 0 };
    for (let i = 0; i < 4000; i++) counts[rng.fromTable(table)]++;
    expect(counts.b).toBe(0);
    expect(counts.c / counts.a).toBeGreaterThan(2.5);
    expect(counts.c / counts.a).toBeLessThan(3.5);
    const plain = { a: 0, b: 0, c: 0 };
    for (let i = 0; i < 4000; i++) plain[rng.weighted(['a', 'b', 'c'] as const, [1, 0, 3])]++;
    expect(plain.b).toBe(0);
    expect(plain.c).toBeGreaterThan(plain.a);
  });

  it('samples distinct items and stays in range', () => {
    const rng = Rng.fromSeed(4);
    for (let i = 0; i < 200; i++) {
      const s = rng.sample([1, 2, 3, 4, 5], 3);
      expect(new Set(s).size).toBe(3);
      const n = rng.int(-2, 2);
      expect(n).toBeGreaterThanOrEqual(-2);
      expect(n).toBeLessThanOrEqual(2);
      const f = rng.float();
      expect(f).toBeGreaterThanOrEqual(0);
      expect(f).toBeLessThan(1);
    }
    expect(rng.sample([1, 2], 5)).toHaveLength(2);
  });
});
