// `npm run bench:relevance`: how well search ranks what a user meant. Generates a catalogue
// (seeded), ingests it under an alias of its own, draws known-item queries (exact name + brand,
// brand + name, a typo, a prefix as typed) and category queries (a brand, a misspelt brand, a
// note, an accord) from it (relevance/queries.ts: add a kind there), runs each through the
// catalogue's own query builder and prints success@1, success@3, MRR@10 and precision@10 per
// kind; the last line is one JSON object. Every change to the query must keep or raise them.
// Description queries ("a smoky fragrance for winter evenings", judged by the records' accords,
// seasons and occasions) are scored too, with nDCG@10, in every search mode: lexical, semantic and
// hybrid (record vectors computed here with the shipped model, as the worker does). Hybrid is the
// default mode only while its known-item success@1 is no lower than lexical's.
//
// Options (env): ELASTICSEARCH_URL (dev cluster http://127.0.0.1:9200, started if default),
// BENCH_RELEVANCE_DOCS (20000), BENCH_RELEVANCE_QUERIES (100 per kind), BENCH_RELEVANCE_SEED (7).
// The bench's indices are deleted afterwards, unless BENCH_RELEVANCE_KEEP=1 (its alias, with record
// vectors, is then kept and named: e.g. for `bench:search --workload descriptions` with BENCH_ALIAS).
import { randomBytes } from 'node:crypto';
import { Client } from '@elastic/elasticsearch';
import { SearchQuery, type FragranceDetail } from '@fragrance/contracts';
import { generateCatalogue } from '@fragrance/dataset';
import { defaultModelDirectory, loadEmbedder } from '@fragrance/embeddings';
import { createCatalogueRepository, ingestCatalogue } from '@fragrance/search';
import { writeRecordVectors } from '@fragrance/search/testing';
import { loadavg } from 'node:os';
import { seededRandom } from './random.ts';
import { meanScores, scoreQuery, type KindScores, type QueryScores } from './relevance/metrics.ts';
import { descriptionKind, drawQueries, indexCatalogue, RELEVANCE_KINDS } from './relevance/queries.ts';
import { DEFAULT_ES, ensureElasticsearch, say as sayAs } from './support.ts';

const ELASTICSEARCH_URL = process.env.ELASTICSEARCH_URL ?? DEFAULT_ES;
const DOCS = Number(process.env.BENCH_RELEVANCE_DOCS ?? 20_000);
const PER_KIND = Number(process.env.BENCH_RELEVANCE_QUERIES ?? 100);
const SEED = Number(process.env.BENCH_RELEVANCE_SEED ?? 7);
const say = (m: string) => sayAs('relevance', m);
/** The kinds where one record is the answer: hybrid must not rank them lower than lexical. */
const KNOWN_ITEM_KINDS = ['name_brand', 'brand_name', 'name_typo', 'name_prefix'];
const alias = `bench-relevance-${randomBytes(3).toString('hex')}`;

ensureElasticsearch(ELASTICSEARCH_URL);
const client = new Client({ node: ELASTICSEARCH_URL, requestTimeout: 120_000 });
try {
  const records: FragranceDetail[] = [...generateCatalogue({ count: DOCS, seed: 42 })];
  say(`${records.length} generated records → ${alias} on ${ELASTICSEARCH_URL}`);
  await ingestCatalogue({ client, alias, records });
  const embedder = await loadEmbedder({ directory: defaultModelDirectory() });
  const embedStarted = performance.now();
  await writeRecordVectors({ client, index: alias, records, embedder });
  say(`record vectors: ${records.length} in ${((performance.now() - embedStarted) / 1000).toFixed(1)} s`);
  const kinds = [...RELEVANCE_KINDS, descriptionKind(records)];
  const queries = drawQueries(records, indexCatalogue(records), seededRandom(SEED), PER_KIND, kinds);
  const repository = createCatalogueRepository({ client, alias, cursorKeys: { current: randomBytes(32).toString('base64url') }, embedder });
  const MODES = ['lexical', 'semantic', 'hybrid'] as const;
  const byMode: Record<string, { kinds: Record<string, KindScores>; known_item_success_at_1: number; overall: KindScores }> = {};
  const started = performance.now();
  for (const mode of MODES) {
    const scores = new Map<string, QueryScores[]>();
    // A few at a time: the figures do not depend on it, the wall time on a shared machine does.
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < queries.length; i = next++) {
        const q = queries[i];
        if (!q) continue;
        const page = await repository.search(SearchQuery.parse({ ...q.params, limit: '10', search_mode: mode }));
        const list = scores.get(q.kind) ?? [];
        list.push(
          scoreQuery(
            page.data.map((d) => d.id),
            q.relevant,
          ),
        );
        scores.set(q.kind, list);
      }
    };
    await Promise.all(Array.from({ length: 4 }, worker));
    const perKind: Record<string, KindScores> = {};
    say(`mode ${mode}`);
    say('kind           queries  success@1  success@3  MRR@10  precision@10  nDCG@10');
    for (const kind of kinds) {
      const mean = meanScores(scores.get(kind.name) ?? []);
      perKind[kind.name] = mean;
      say(
        `${kind.name.padEnd(14)} ${String(mean.queries).padStart(7)}  ${mean.success_at_1.toFixed(3).padStart(9)}  ${mean.success_at_3
          .toFixed(3)
          .padStart(
            9,
          )}  ${mean.mrr_at_10.toFixed(3).padStart(6)}  ${mean.precision_at_10.toFixed(3).padStart(12)}  ${mean.ndcg_at_10.toFixed(3).padStart(7)}`,
      );
    }
    const knownItem = meanScores(KNOWN_ITEM_KINDS.flatMap((k) => scores.get(k) ?? []));
    byMode[mode] = { kinds: perKind, known_item_success_at_1: knownItem.success_at_1, overall: meanScores([...scores.values()].flat()) };
    say(`known-item success@1 (${KNOWN_ITEM_KINDS.join(', ')}): ${knownItem.success_at_1.toFixed(3)}`);
  }
  await embedder.close();
  const seconds = (performance.now() - started) / 1000;
  const hybridKeepsKnownItems = byMode.hybrid!.known_item_success_at_1 >= byMode.lexical!.known_item_success_at_1;
  say(
    `${queries.length} queries × ${MODES.length} modes in ${seconds.toFixed(1)} s; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}; ` +
      `hybrid ${hybridKeepsKnownItems ? 'keeps' : 'LOWERS'} known-item success@1 (default mode: ${hybridKeepsKnownItems ? 'hybrid' : 'lexical'})`,
  );
  process.stdout.write(
    `${JSON.stringify({ bench: 'relevance', documents: records.length, seed: SEED, modes: byMode, hybrid_keeps_known_items: hybridKeepsKnownItems, load_average: loadavg() })}\n`,
  );
} finally {
  if (process.env.BENCH_RELEVANCE_KEEP === '1') say(`kept ${alias} (BENCH_RELEVANCE_KEEP=1): delete it when done`);
  // Every index of the bench's alias, its suggest index included (listVersions names only the versions).
  if (process.env.BENCH_RELEVANCE_KEEP !== '1')
    await client.indices.delete({ index: `${alias}-*`, ignore_unavailable: true, allow_no_indices: true }).catch(() => undefined);
  await client.close();
}
