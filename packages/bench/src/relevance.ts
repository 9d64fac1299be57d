// `npm run bench:relevance`: how well search ranks what a user meant.
//
// --catalogue generated (the default): generates a catalogue (seeded), ingests it under an alias of
// its own, draws known-item queries (exact name + brand, brand + name, a typo, a prefix as typed)
// and category queries (a brand, a misspelt brand, a note, an accord) from it (relevance/queries.ts:
// add a kind there), runs each through the catalogue's own query builder and prints success@1,
// success@3, MRR@10, precision@10 and the zero-result rate per kind; the last line is one JSON
// object. Every change to the query must keep or raise them. Description queries ("a smoky
// fragrance for winter evenings", judged by the records' accords, seasons and occasions) are scored
// too, with nDCG@10, in every search mode: lexical, semantic and hybrid (record vectors computed
// here with the shipped model, as the worker does). Hybrid is the default mode only while its
// known-item success@1 is no lower than lexical's.
//
// --catalogue real (issue 33): imports a real Parfumo CSV (default the vendored sample,
// packages/bench/data/) with the operator importer into an alias of its own, draws shopper queries
// from it by rule (relevance/shopper-queries.ts: aliases, number words, a brand alone, …) and
// scores them in the default mode and in lexical, against the issue's targets.
//
// Options: --catalogue generated|real, --file <parfumo.csv>, --queries <per kind> (env
// BENCH_RELEVANCE_QUERIES; 100 generated, 300 real), --seed (BENCH_RELEVANCE_SEED, 7); env
// ELASTICSEARCH_URL (dev cluster http://127.0.0.1:9200, started if default), BENCH_RELEVANCE_DOCS
// (20000, generated). The bench's indices are deleted afterwards, unless BENCH_RELEVANCE_KEEP=1 (its
// alias, with record vectors, is then kept and named: e.g. for `bench:search --workload
// descriptions` with BENCH_ALIAS).
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { Client } from '@elastic/elasticsearch';
import { foldKey, SearchQuery, type FragranceDetail, type SearchMode } from '@fragrance/contracts';
import { generateCatalogue } from '@fragrance/dataset';
import { defaultModelDirectory, loadEmbedder, type Embedder } from '@fragrance/embeddings';
import { createCatalogueRepository, ingestCatalogue, lineName, type CatalogueRepository, type SimilarFilters } from '@fragrance/search';
import { writeRecordVectors } from '@fragrance/search/testing';
import { seededRandom } from './random.ts';
import { meanScores, scoreQuery, type KindScores, type QueryScores } from './relevance/metrics.ts';
import { parseRelevanceOptions } from './relevance/options.ts';
import { benchConfig, RelevanceBenchConfig } from './config.ts';
import { descriptionKind, drawQueries, indexCatalogue, RELEVANCE_KINDS, type RelevanceQuery } from './relevance/queries.ts';
import { readRealCatalogue } from './relevance/real-catalogue.ts';
import { drawShopperQueries, SHOPPER_KINDS, type JudgedBy } from './relevance/shopper-queries.ts';
import { similarThroughGateway } from './similar-gateway.ts';
import { ensureElasticsearch, say as sayAs } from './support.ts';

const options = parseRelevanceOptions(process.argv.slice(2), benchConfig(RelevanceBenchConfig));
const say = (m: string) => sayAs('relevance', m);
/** The kinds where one record is the answer: hybrid must not rank them lower than lexical. */
const KNOWN_ITEM_KINDS = ['name_brand', 'brand_name', 'name_typo', 'name_prefix'];
const alias = options.reuse ?? `bench-relevance-${options.catalogue}-${randomBytes(3).toString('hex')}`;
const fixed = (x: number, width: number) => x.toFixed(3).padStart(width);

/** Issue 33's targets per kind: the judged metric and its floor; zero results 0 for every shopper kind. */
const REAL_TARGETS: Readonly<Record<string, { judgedBy: JudgedBy; target: number; zeroResults: boolean }>> = {
  ...Object.fromEntries(SHOPPER_KINDS.map((k) => [k.name, { judgedBy: k.judgedBy, target: k.target, zeroResults: true }])),
  // Description queries keep precision@10 ≥ 0.9 in the default mode; a page may rightly be empty.
  description: { judgedBy: 'precision_at_10', target: 0.9, zeroResults: false },
};

/** Each similar filter (--kind similar) and what every result it lets through must satisfy. */
const SIMILAR_FILTERS: Record<string, { filters: SimilarFilters; ok: (source: FragranceDetail, alt: FragranceDetail) => boolean }> = {
  other_brands: { filters: { other_brands: true }, ok: (s, a) => foldKey(s.brand) !== foldKey(a.brand) },
  available_in_au: { filters: { available_in_au: true }, ok: (_s, a) => a.available_in_au },
  max_price_aud: {
    filters: { max_price_aud: 100 },
    ok: (_s, a) => a.au_availability.price_min_aud !== null && a.au_availability.price_min_aud <= 100,
  },
  exclude_flankers: {
    filters: { exclude_flankers: true },
    ok: (s, a) => {
      const line = lineName(s.name);
      const name = foldKey(a.name);
      return foldKey(s.brand) !== foldKey(a.brand) || (name !== line && !name.startsWith(`${line} `));
    },
  },
};

ensureElasticsearch(options.elasticsearchUrl);
const client = new Client({ node: options.elasticsearchUrl, requestTimeout: 120_000 });
try {
  if (options.kind === 'similar') await benchSimilar();
  else if (options.catalogue === 'real') await benchRealCatalogue();
  else await benchGeneratedCatalogue();
} finally {
  if (options.keep) say(`kept ${alias} (BENCH_RELEVANCE_KEEP=1): delete it when done`);
  // Every index of the bench's alias, its suggest index included (listVersions names only the versions).
  else await client.indices.delete({ index: `${alias}-*`, ignore_unavailable: true, allow_no_indices: true }).catch(() => undefined);
  await client.close();
}

/** Ingests `records` under the bench's alias and writes their vectors (as the worker does), so hybrid has a kNN leg. */
async function indexWithVectors(records: readonly FragranceDetail[], embedder: Embedder): Promise<CatalogueRepository> {
  const repository = () =>
    createCatalogueRepository({ client, alias, cursorKeys: { current: randomBytes(32).toString('base64url') }, embedder });
  if (options.reuse) return repository();
  await ingestCatalogue({ client, alias, records: [...records] });
  const embedStarted = performance.now();
  await writeRecordVectors({ client, index: alias, records, embedder });
  say(`record vectors: ${records.length} in ${((performance.now() - embedStarted) / 1000).toFixed(1)} s`);
  return repository();
}

/** Every query through the repository in one mode (undefined: the default, no search_mode sent); scores per kind. */
async function runQueries(
  repository: CatalogueRepository,
  queries: readonly RelevanceQuery[],
  mode: SearchMode | undefined,
  describe?: (id: string) => string,
) {
  const scores = new Map<string, QueryScores[]>();
  const missed = new Map<string, string[]>();
  // A few at a time: the figures do not depend on it, the wall time on a shared machine does.
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < queries.length; i = next++) {
      const q = queries[i];
      if (!q) continue;
      const page = await repository.search(SearchQuery.parse({ ...q.params, limit: '10', ...(mode ? { search_mode: mode } : {}) }));
      const list = scores.get(q.kind) ?? [];
      const scored = scoreQuery(
        page.data.map((d) => d.id),
        q.relevant,
      );
      list.push(scored);
      scores.set(q.kind, list);
      const lines = missed.get(q.kind) ?? [];
      if (describe && scored.success_at_1 === 0 && lines.length < options.misses) {
        const wanted = [...q.relevant].slice(0, 2).map(describe).join(' or ');
        const got = page.data.slice(0, 3).map((d) => describe(d.id));
        lines.push(
          `${JSON.stringify(q.params.query)}${page.relaxed ? ` (relaxed ${page.relaxed.dropped.join(' ')})` : ''}: wanted ${wanted}; got ${got.join(' | ') || 'nothing'}`,
        );
        missed.set(q.kind, lines);
      }
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  for (const [kind, lines] of missed) for (const line of lines) say(`  missed ${kind}: ${line}`);
  return scores;
}

/** One line per kind; the means by kind name. */
function printKinds(kindNames: readonly string[], scores: Map<string, QueryScores[]>): Record<string, KindScores> {
  const perKind: Record<string, KindScores> = {};
  say('kind                queries  success@1  success@3  zero-results  MRR@10  precision@10  nDCG@10');
  for (const name of kindNames) {
    const mean = meanScores(scores.get(name) ?? []);
    perKind[name] = mean;
    say(
      `${name.padEnd(19)} ${String(mean.queries).padStart(7)}  ${fixed(mean.success_at_1, 9)}  ${fixed(mean.success_at_3, 9)}  ` +
        `${fixed(mean.zero_result_rate, 12)}  ${fixed(mean.mrr_at_10, 6)}  ${fixed(mean.precision_at_10, 12)}  ${fixed(mean.ndcg_at_10, 7)}`,
    );
  }
  return perKind;
}

async function benchGeneratedCatalogue(): Promise<void> {
  const records: FragranceDetail[] = [...generateCatalogue({ count: options.documents, seed: 42 })];
  say(`${records.length} generated records → ${alias} on ${options.elasticsearchUrl}`);
  const embedder = await loadEmbedder({ directory: defaultModelDirectory() });
  const repository = await indexWithVectors(records, embedder);
  const kinds = [...RELEVANCE_KINDS, descriptionKind(records)];
  const queries = drawQueries(records, indexCatalogue(records), seededRandom(options.seed), options.perKind, kinds);
  const MODES = ['lexical', 'semantic', 'hybrid'] as const;
  const byMode: Record<string, { kinds: Record<string, KindScores>; known_item_success_at_1: number; overall: KindScores }> = {};
  const describe = describeRecords(records);
  const started = performance.now();
  for (const mode of MODES) {
    const scores = await runQueries(repository, queries, mode, describe);
    say(`mode ${mode}`);
    const perKind = printKinds(
      kinds.map((k) => k.name),
      scores,
    );
    const knownItem = meanScores(KNOWN_ITEM_KINDS.flatMap((k) => scores.get(k) ?? []));
    byMode[mode] = { kinds: perKind, known_item_success_at_1: knownItem.success_at_1, overall: meanScores([...scores.values()].flat()) };
    say(`known-item success@1 (${KNOWN_ITEM_KINDS.join(', ')}): ${knownItem.success_at_1.toFixed(3)}`);
  }
  await embedder.close();
  const hybridKeepsKnownItems = byMode.hybrid!.known_item_success_at_1 >= byMode.lexical!.known_item_success_at_1;
  say(
    `${queries.length} queries × ${MODES.length} modes in ${((performance.now() - started) / 1000).toFixed(1)} s; load average ${loadAverage()}; ` +
      `hybrid ${hybridKeepsKnownItems ? 'keeps' : 'LOWERS'} known-item success@1 (default mode: ${hybridKeepsKnownItems ? 'hybrid' : 'lexical'})`,
  );
  const summary = { bench: 'relevance', catalogue: 'generated', documents: records.length, seed: options.seed, modes: byMode };
  process.stdout.write(`${JSON.stringify({ ...summary, hybrid_keeps_known_items: hybridKeepsKnownItems, load_average: loadavg() })}\n`);
}

/** A record as a missed query prints it (--misses): name, brand, concentration, votes. */
function describeRecords(records: readonly FragranceDetail[]): (id: string) => string {
  const byId = new Map(records.map((r) => [r.id, r]));
  return (id) => {
    const r = byId.get(id);
    return r ? `${r.name} / ${r.brand} / ${r.concentration} / ${r.rating.count} votes` : id;
  };
}

function loadAverage(): string {
  return loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
}

interface TargetCheck {
  kind: string;
  judged_by: JudgedBy;
  value: number;
  target: number;
  met: boolean;
  zero_result_rate: number;
  zero_results_met: boolean;
}

/** Each kind against its target, printed; the checks for the JSON line. */
function checkTargets(perKind: Record<string, KindScores>): TargetCheck[] {
  const checks = Object.entries(REAL_TARGETS).flatMap(([kind, t]) => {
    const scores = perKind[kind];
    if (!scores || scores.queries === 0) return [];
    const value = scores[t.judgedBy];
    const zeroMet = !t.zeroResults || scores.zero_result_rate === 0;
    return [
      {
        kind,
        judged_by: t.judgedBy,
        value,
        target: t.target,
        met: value >= t.target,
        zero_result_rate: scores.zero_result_rate,
        zero_results_met: zeroMet,
      },
    ];
  });
  say('targets (issue 33): kind, judged by, value ≥ target, zero results 0 %');
  for (const c of checks)
    say(
      `  ${c.kind.padEnd(19)} ${c.judged_by.padEnd(15)} ${c.value.toFixed(3)} ≥ ${c.target.toFixed(2)} ${c.met ? 'met' : 'MISSED'}` +
        `   zero results ${(c.zero_result_rate * 100).toFixed(1)} % ${c.zero_results_met ? 'met' : 'MISSED'}`,
    );
  const met = checks.filter((c) => c.met && c.zero_results_met).length;
  say(`${met} of ${checks.length} kinds meet their targets`);
  return checks;
}

async function benchRealCatalogue(): Promise<void> {
  const { records, rejected } = await readRealCatalogue(options.file);
  say(`${records.length} records of ${options.file} (${rejected.length} lines rejected) → ${alias} on ${options.elasticsearchUrl}`);
  const embedder = await loadEmbedder({ directory: defaultModelDirectory() });
  const repository = await indexWithVectors(records, embedder);
  const random = seededRandom(options.seed);
  const description = descriptionKind(records);
  const queries = [
    ...drawShopperQueries(records, random, options.perKind),
    ...drawQueries(records, indexCatalogue(records), random, options.perKind, [description]),
  ];
  const kindNames = [...SHOPPER_KINDS.map((k) => k.name), description.name];
  const describe = describeRecords(records);
  const MODES = [
    { label: 'default', mode: undefined },
    { label: 'lexical', mode: 'lexical' },
  ] as const;
  const byMode: Record<string, { kinds: Record<string, KindScores>; targets: TargetCheck[] }> = {};
  const started = performance.now();
  for (const { label, mode } of MODES) {
    const scores = await runQueries(repository, queries, mode, describe);
    say(`mode ${label}${mode ? '' : ' (no search_mode sent)'}`);
    const perKind = printKinds(kindNames, scores);
    byMode[label] = { kinds: perKind, targets: checkTargets(perKind) };
  }
  await embedder.close();
  say(
    `${queries.length} queries × ${MODES.length} modes in ${((performance.now() - started) / 1000).toFixed(1)} s; load average ${loadAverage()}`,
  );
  const summary = { bench: 'relevance', catalogue: 'real', file: options.file, documents: records.length, rejected: rejected.length };
  process.stdout.write(
    `${JSON.stringify({ ...summary, seed: options.seed, per_kind: options.perKind, modes: byMode, load_average: loadavg() })}\n`,
  );
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return 0;
  return s.length % 2 ? (s[(s.length - 1) / 2] ?? 0) : ((s[s.length / 2 - 1] ?? 0) + (s[s.length / 2] ?? 0)) / 2;
}

/** The records judged and a repository over them: indexed with vectors, or the kept alias (--reuse). */
async function similarRepository() {
  const { records } =
    options.catalogue === 'real'
      ? await readRealCatalogue(options.file)
      : { records: [...generateCatalogue({ count: options.documents, seed: 42 })] };
  say(`similar: ${records.length} ${options.catalogue} records → ${alias} on ${options.elasticsearchUrl}`);
  const embedder = options.reuse ? undefined : await loadEmbedder({ directory: defaultModelDirectory() });
  const repository = embedder
    ? await indexWithVectors(records, embedder)
    : createCatalogueRepository({ client, alias, cursorKeys: { current: randomBytes(32).toString('base64url') } });
  await embedder?.close();
  return { records, repository };
}

/**
 * --kind similar (issue 38): alternatives of sampled records (with main accords), through the
 * catalogue's repository: the share of alternatives sharing a main accord with their source,
 * distinct houses in the top ten, every alternative with its reasons, each filter checked on
 * every result; then the p50 of the unfiltered call through the gateway at concurrency 1, beside
 * the similar before issue 38 in the same run (similar-gateway.ts).
 */
async function benchSimilar(): Promise<void> {
  const { records, repository } = await similarRepository();
  const byId = new Map(records.map((r) => [r.id, r]));
  const random = seededRandom(options.seed);
  const candidates = records.filter((r) => r.main_accords.length > 0);
  const sources = Array.from(
    { length: Math.min(options.perKind, candidates.length) },
    () => candidates[Math.floor(random() * candidates.length)]!,
  );
  let alternatives = 0;
  let sharingMain = 0;
  let withReasons = 0;
  const houses: number[] = [];
  const checks: Record<string, { results: number; wrong: number }> = Object.fromEntries(
    Object.keys(SIMILAR_FILTERS).map((k) => [k, { results: 0, wrong: 0 }]),
  );
  for (const source of sources) {
    const data = (await repository.similar(source.id, 10)) ?? [];
    const main = new Set(source.main_accords.map(foldKey));
    for (const alt of data) {
      alternatives++;
      if (alt.main_accords.some((a) => main.has(foldKey(a)))) sharingMain++;
      if (alt.reasons.summary.length > 0) withReasons++;
    }
    houses.push(new Set(data.slice(0, 10).map((a) => foldKey(a.brand))).size);
    for (const [name, { filters, ok }] of Object.entries(SIMILAR_FILTERS)) {
      for (const alt of (await repository.similar(source.id, 10, filters)) ?? []) {
        checks[name]!.results++;
        const record = byId.get(alt.id);
        if (!record || !ok(source, record)) checks[name]!.wrong++;
      }
    }
  }
  const figures = {
    sources: sources.length,
    alternatives,
    share_with_common_main_accord: alternatives ? sharingMain / alternatives : 0,
    share_with_reasons: alternatives ? withReasons / alternatives : 0,
    median_houses_in_top_ten: median(houses),
    filters: Object.fromEntries(Object.entries(checks).map(([k, c]) => [k, { ...c, exact: c.wrong === 0 }])),
  };
  say(`sources ${figures.sources}, alternatives ${alternatives}`);
  say(`share of alternatives with a common main accord: ${figures.share_with_common_main_accord.toFixed(3)} (target ≥ 0.9)`);
  say(
    `share with reasons: ${figures.share_with_reasons.toFixed(3)}; median houses in the top ten: ${figures.median_houses_in_top_ten} (target ≥ 6)`,
  );
  for (const [k, c] of Object.entries(checks))
    say(`filter ${k.padEnd(17)} ${String(c.results).padStart(6)} results, ${c.wrong} wrong${c.results === 0 ? ' (none to check)' : ''}`);
  const ids = [...new Set(sources.map((s) => s.id))];
  const gateway = await similarThroughGateway({ alias, elasticsearchUrl: options.elasticsearchUrl, ids, rounds: 3, say });
  say(
    `similar through the gateway (concurrency 1, ${gateway.requests} requests a side): p50 ${gateway.p50_ms} ms, p90 ${gateway.p90_ms} ms; ` +
      `before issue 38 (${gateway.baseline.commit.slice(0, 7)}) p50 ${gateway.baseline.p50_ms} ms, p90 ${gateway.baseline.p90_ms} ms; ` +
      `ratio ${gateway.p50_ratio} (target ≤ 1); control, the detail of the same ids: p50 ${gateway.detail.p50_ms} ms, ` +
      `before ${gateway.detail.baseline_p50_ms} ms, ratio ${gateway.detail.p50_ratio}; load average ${loadAverage()}`,
  );
  process.stdout.write(
    `${JSON.stringify({ bench: 'relevance', kind: 'similar', catalogue: options.catalogue, documents: records.length, seed: options.seed, ...figures, gateway, load_average: loadavg() })}\n`,
  );
}
