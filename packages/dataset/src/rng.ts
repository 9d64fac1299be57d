import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import type { JumpableRandomGenerator } from 'pure-rand/types/JumpableRandomGenerator';

/** Largest accepted seed: xoroshiro128plus seeds from a 32-bit integer. */
export const MAX_SEED = 0x7fff_ffff;

/**
 * Seeded random source for the generator. Every value in the output comes from one of these,
 * never from Math.random() or the clock, so a (count, seed) pair always yields the same bytes.
 */
export class Rng {
  readonly #gen: JumpableRandomGenerator;

  constructor(gen: JumpableRandomGenerator) {
    this.#gen = gen;
  }

  static fromSeed(seed: number): Rng {
    const gen = xoroshiro128plus(seed);
    // Neighbouring seeds start from almost identical states: burn a few outputs to decorrelate them.
    for (let i = 0; i < 32; i++) gen.next();
    return new Rng(gen);
  }

  /** An independent stream 2^64 steps ahead; this stream is left where it was. */
  fork(): Rng {
    const gen = this.#gen.clone();
    gen.jump();
    return new Rng(gen);
  }

  /** Uniform float in [0, 1). 32 bits of resolution are plenty for sampling. */
  float(): number {
    return (this.#gen.next() >>> 0) / 4_294_967_296;
  }

  /** Uniform integer in [min, max], both included. */
  int(min: number, max: number): number {
    return uniformInt(this.#gen, min, max);
  }

  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[this.int(0, items.length - 1)] as T;
  }

  /** Picks by weight; `weights` must be parallel to `items` and sum to more than 0. */
  weighted<T>(items: readonly T[], weights: readonly number[]): T {
    let total = 0;
    for (const w of weights) total += w;
    let r = this.float() * total;
    for (let i = 0; i < items.length; i++) {
      r -= weights[i] ?? 0;
      if (r < 0) return items[i] as T;
    }
    return items[items.length - 1] as T;
  }

  /** Picks from a table made once with `weightedTable` (binary search: for long or hot lists). */
  fromTable<T>(table: WeightedTable<T>): T {
    const r = this.float() * table.total;
    let lo = 0;
    let hi = table.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((table.cumulative[mid] ?? 0) > r) hi = mid;
      else lo = mid + 1;
    }
    return table.items[lo] as T;
  }

  /** Standard normal deviate (Box–Muller). */
  normal(): number {
    const u = 1 - this.float(); // (0, 1]: log(0) is not allowed
    const v = this.float();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** Exponential deviate with the given mean. */
  exponential(mean: number): number {
    return -Math.log(1 - this.float()) * mean;
  }

  /** Up to `n` distinct items, in random order. */
  sample<T>(items: readonly T[], n: number): T[] {
    const copy = items.slice();
    const take = Math.min(n, copy.length);
    for (let i = 0; i < take; i++) {
      const j = this.int(i, copy.length - 1);
      const tmp = copy[i] as T;
      copy[i] = copy[j] as T;
      copy[j] = tmp;
    }
    return copy.slice(0, take);
  }

  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      const tmp = items[i] as T;
      items[i] = items[j] as T;
      items[j] = tmp;
    }
    return items;
  }

  /** RFC 9562 version-4 formatted UUID built from this stream's bits. */
  uuid(): string {
    const hex = (n: number) => (n >>> 0).toString(16).padStart(8, '0');
    const a = hex(this.#gen.next());
    const b = hex((this.#gen.next() & 0xffff0fff) | 0x00004000); // version nibble 4
    const c = hex((this.#gen.next() & 0x3fffffff) | 0x80000000); // variant bits 10
    const d = hex(this.#gen.next());
    return `${a}-${b.slice(0, 4)}-${b.slice(4)}-${c.slice(0, 4)}-${c.slice(4)}${d}`;
  }
}

export interface WeightedTable<T> {
  items: readonly T[];
  cumulative: Float64Array;
  total: number;
}

/** Cumulative weights for `Rng.fromTable`. */
export function weightedTable<T>(items: readonly T[], weights: readonly number[]): WeightedTable<T> {
  const cumulative = new Float64Array(items.length);
  let total = 0;
  items.forEach((_, i) => {
    total += weights[i] ?? 0;
    cumulative[i] = total;
  });
  return { items, cumulative, total };
}
