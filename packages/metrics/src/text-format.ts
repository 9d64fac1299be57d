/**
 * Reading the Prometheus text format back (the ops CLI's view when no Prometheus runs): samples
 * by name and labels, and quantiles from histogram buckets the way Prometheus computes them.
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parsePrometheusText(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const match = LINE.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const [, key, raw] of (match[2] ?? '').matchAll(LABEL)) {
      labels[key!] = raw!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    }
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/**
 * The q-quantile of a histogram from its cumulative buckets (upper bound → count), linearly
 * interpolated within the bucket, as PromQL's histogram_quantile. NaN without observations.
 */
export function histogramQuantile(q: number, buckets: ReadonlyMap<number, number>): number {
  const sorted = [...buckets].sort(([a], [b]) => a - b);
  const total = sorted.at(-1)?.[1] ?? 0;
  if (total <= 0) return Number.NaN;
  const rank = q * total;
  let lowerBound = 0;
  let lowerCount = 0;
  for (const [bound, count] of sorted) {
    if (count >= rank) {
      if (bound === Number.POSITIVE_INFINITY) return lowerBound;
      return lowerBound + ((bound - lowerBound) * (rank - lowerCount)) / Math.max(count - lowerCount, Number.EPSILON);
    }
    lowerBound = bound;
    lowerCount = count;
  }
  return lowerBound;
}
