import { seededRandom } from './random.ts';

export type Workload = 'uniform' | 'zipf' | 'descriptions';

/** `--workload uniform|zipf|descriptions` from the command line (uniform when absent); anything else is an error. */
export function parseWorkload(argv: readonly string[]): Workload {
  const at = argv.findIndex((a) => a === '--workload' || a.startsWith('--workload='));
  if (at === -1) return 'uniform';
  const value = argv[at]?.includes('=') ? argv[at]?.split('=')[1] : argv[at + 1];
  if (value === 'uniform' || value === 'zipf' || value === 'descriptions') return value;
  throw new Error(`--workload must be uniform, zipf or descriptions, not ${String(value)}`);
}

/**
 * `length` draws of ranks 0..n-1 with P(rank k) ∝ 1/(k+1)^exponent: a few requests make most of
 * the traffic, a long tail is seen once or never. Seeded, so every target replays the same
 * sequence.
 */
export function zipfSequence(n: number, exponent: number, length: number, seed: number): Uint32Array {
  const cdf = new Float64Array(n);
  let total = 0;
  for (let k = 0; k < n; k++) cdf[k] = total += 1 / Math.pow(k + 1, exponent);
  const random = seededRandom(seed);
  const out = new Uint32Array(length);
  for (let i = 0; i < length; i++) {
    const u = random() * total;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((cdf[mid] ?? 0) < u) lo = mid + 1;
      else hi = mid;
    }
    out[i] = lo;
  }
  return out;
}
