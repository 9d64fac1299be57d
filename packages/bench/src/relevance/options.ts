// bench:relevance's options, read once: the command line says which catalogue, the environment
// keeps the knobs the generated bench has always had.
import { parseArgs } from 'node:util';
import { DEFAULT_ES } from '../support.ts';
import { REAL_SAMPLE } from './real-catalogue.ts';

export const CATALOGUES = ['generated', 'real'] as const;
export type CatalogueChoice = (typeof CATALOGUES)[number];

export const KINDS = ['search', 'similar'] as const;
export type KindChoice = (typeof KINDS)[number];

export interface RelevanceOptions {
  catalogue: CatalogueChoice;
  /** search (the default): queries judged per kind; similar: alternatives of sampled records (issue 38). */
  kind: KindChoice;
  /** The Parfumo CSV judged with --catalogue real (default: the vendored sample). */
  file: string;
  elasticsearchUrl: string;
  /** Generated catalogue size. */
  documents: number;
  /** Queries drawn per kind at most. */
  perKind: number;
  seed: number;
  /** Keep the bench's alias (with record vectors) instead of deleting its indices. */
  keep: boolean;
  /** Print up to this many missed queries per kind (query, wanted record, top hits): for tuning rules. */
  misses: number;
  /** A kept alias (BENCH_RELEVANCE_KEEP=1) of the same catalogue to query instead of importing again: query-side changes only. */
  reuse: string | undefined;
}

const USAGE =
  'usage: bench:relevance [-- --catalogue generated|real] [--kind search|similar] [--file parfumo.csv] [--queries N] [--seed N] [--misses N] [--reuse <kept alias>]';

function wholeNumber(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive whole number, got "${value}"\n${USAGE}`);
  return n;
}

export function parseRelevanceOptions(argv: readonly string[], env: NodeJS.ProcessEnv): RelevanceOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      catalogue: { type: 'string' },
      kind: { type: 'string' },
      file: { type: 'string' },
      queries: { type: 'string' },
      seed: { type: 'string' },
      misses: { type: 'string' },
      reuse: { type: 'string' },
    },
  });
  const catalogue = (values.catalogue ?? 'generated') as CatalogueChoice;
  if (!CATALOGUES.includes(catalogue)) throw new Error(`--catalogue must be one of ${CATALOGUES.join(', ')}\n${USAGE}`);
  const kind = (values.kind ?? 'search') as KindChoice;
  if (!KINDS.includes(kind)) throw new Error(`--kind must be one of ${KINDS.join(', ')}\n${USAGE}`);
  // The real catalogue draws more per kind: its rules yield hundreds where the generated bench samples 100.
  const defaultPerKind = catalogue === 'real' ? 300 : 100;
  return {
    catalogue,
    kind,
    file: values.file ?? REAL_SAMPLE,
    elasticsearchUrl: env.ELASTICSEARCH_URL ?? DEFAULT_ES,
    documents: wholeNumber('BENCH_RELEVANCE_DOCS', env.BENCH_RELEVANCE_DOCS, 20_000),
    perKind: wholeNumber('--queries', values.queries ?? env.BENCH_RELEVANCE_QUERIES, defaultPerKind),
    seed: wholeNumber('--seed', values.seed ?? env.BENCH_RELEVANCE_SEED, 7),
    keep: env.BENCH_RELEVANCE_KEEP === '1' || values.reuse !== undefined,
    misses: values.misses === undefined ? 0 : wholeNumber('--misses', values.misses, 0),
    reuse: values.reuse,
  };
}
