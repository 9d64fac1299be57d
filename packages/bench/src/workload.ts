import { parseArgs } from 'node:util';
import { foldKey } from '@fragrance/contracts';
import { seededRandom } from './random.ts';

export const WORKLOADS = ['uniform', 'zipf', 'descriptions', 'distinct'] as const;
export type Workload = (typeof WORKLOADS)[number];

/** `--workload uniform|zipf|descriptions|distinct` from the command line (uniform when absent); anything else is an error. */
export function parseWorkload(argv: readonly string[]): Workload {
  // strict: false keeps other arguments (a bench's own) passing through untouched.
  const { values } = parseArgs({ args: [...argv], options: { workload: { type: 'string' } }, strict: false, allowPositionals: true });
  const value = values.workload ?? 'uniform';
  const known: readonly unknown[] = WORKLOADS;
  if (known.includes(value)) return value as Workload;
  throw new Error(`--workload must be uniform, zipf, descriptions or distinct, not ${String(value)}`);
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

/** A catalogue record as the `distinct` workload names it. */
export interface KnownItem {
  id: string;
  name: string;
  brand: string;
}

/** How a known-item text names its record: the name, brand + name, or name + brand. */
export type KnownItemForm = 'name' | 'brand_name' | 'name_brand';

/** One request of the `distinct` workload: a text that names record `id`, never sent twice. */
export interface DistinctRequest {
  id: string;
  form: KnownItemForm;
  /** Folded as a shopper types it (lower case, no accents or punctuation). */
  query: string;
  limit: number;
}

const FORMS: readonly KnownItemForm[] = ['name', 'brand_name', 'name_brand'];
const DISTINCT_LIMITS = [10, 20] as const;

function knownItemText(form: KnownItemForm, record: KnownItem): string {
  const name = foldKey(record.name);
  const brand = foldKey(record.brand);
  if (name === '') return '';
  return form === 'name' ? name : form === 'brand_name' ? `${brand} ${name}`.trim() : `${name} ${brand}`.trim();
}

/**
 * The `distinct` workload: every record named as `name`, `brand name` and `name brand`, each
 * folded text once only (a name several records share is kept for the first), in a seeded
 * shuffle so every stretch of the stream holds the same mixture of forms. No two requests share
 * a text, so no two share a request target or a cache key (the catalogue's response cache, the
 * gateway's edge cache, a cache of query embeddings): a bench takes each request once, whatever
 * the target, and every answer is computed.
 */
export function distinctRequests(records: readonly KnownItem[], seed: number): DistinctRequest[] {
  const random = seededRandom(seed);
  const seen = new Set<string>();
  const out: DistinctRequest[] = [];
  for (const form of FORMS) {
    for (const record of records) {
      const query = knownItemText(form, record);
      if (query === '' || query.length > 200 || seen.has(query)) continue;
      seen.add(query);
      out.push({ id: record.id, form, query, limit: DISTINCT_LIMITS[Math.floor(random() * DISTINCT_LIMITS.length)]! });
    }
  }
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
