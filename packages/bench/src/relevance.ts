// `npm run bench:relevance`: how well search ranks what a user meant. Generates a catalogue
// (seeded), ingests it under an alias of its own, draws known-item queries (exact name + brand,
// brand + name, a typo, a prefix as typed) and category queries (a brand, a misspelt brand, a
// note, an accord) from it (relevance/queries.ts: add a kind there), runs each through the
// catalogue's own query builder and prints success@1, success@3, MRR@10 and precision@10 per
// kind; the last line is one JSON object. Every change to the query must keep or raise them.
//
// Options (env): ELASTICSEARCH_URL (dev cluster http://127.0.0.1:9200, started if default),
// BENCH_RELEVANCE_DOCS (20000), BENCH_RELEVANCE_QUERIES (100 per kind), BENCH_RELEVANCE_SEED (7).
// The bench's indices are deleted afterwards.
import { randomBytes } from 'node:crypto';
import { Client } from '@elastic/elasticsearch';
import { SearchQuery, type FragranceDetail } from '@fragrance/contracts';
import { generateCatalogue } from '@fragrance/dataset';
import { createCatalogueRepository, ingestCatalogue, listVersions } from '@fragrance/search';
import { seededRandom } from './random.ts';
import { meanScores, scoreQuery, type KindScores, type QueryScores } from './relevance/metrics.ts';
import { drawQueries, indexCatalogue, RELEVANCE_KINDS } from './relevance/queries.ts';
import { DEFAULT_ES, ensureElasticsearch, say as sayAs } from './support.ts';

const ELASTICSEARCH_URL = process.env.ELASTICSEARCH_URL ?? DEFAULT_ES;
const DOCS = Number(process.env.BENCH_RELEVANCE_DOCS ?? 20_000);
const PER_KIND = Number(process.env.BENCH_RELEVANCE_QUERIES ?? 100);
const SEED = Number(process.env.BENCH_RELEVANCE_SEED ?? 7);
const say = (m: string) => sayAs('relevance', m);
const alias = `bench-relevance-${randomBytes(3).toString('hex')}`;

ensureElasticsearch(ELASTICSEARCH_URL);
const client = new Client({ node: ELASTICSEARCH_URL, requestTimeout: 120_000 });
try {
  const records: FragranceDetail[] = [...generateCatalogue({ count: DOCS, seed: 42 })];
  say(`${records.length} generated records → ${alias} on ${ELASTICSEARCH_URL}`);
  await ingestCatalogue({ client, alias, records });
  const queries = drawQueries(records, indexCatalogue(records), seededRandom(SEED), PER_KIND);
  const repository = createCatalogueRepository({ client, alias, cursorKeys: { current: randomBytes(32).toString('base64url') } });
  const scores = new Map<string, QueryScores[]>();
  const started = performance.now();
  // A few at a time: the figures do not depend on it, the wall time on a shared machine does.
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < queries.length; i = next++) {
      const q = queries[i];
      if (!q) continue;
      const page = await repository.search(SearchQuery.parse({ ...q.params, limit: '10' }));
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
  const seconds = (performance.now() - started) / 1000;
  const kinds: Record<string, KindScores> = {};
  say('kind           queries  success@1  success@3  MRR@10  precision@10');
  for (const kind of RELEVANCE_KINDS) {
    const mean = meanScores(scores.get(kind.name) ?? []);
    kinds[kind.name] = mean;
    say(
      `${kind.name.padEnd(14)} ${String(mean.queries).padStart(7)}  ${mean.success_at_1.toFixed(3).padStart(9)}  ${mean.success_at_3
        .toFixed(3)
        .padStart(9)}  ${mean.mrr_at_10.toFixed(3).padStart(6)}  ${mean.precision_at_10.toFixed(3).padStart(12)}`,
    );
  }
  const overall = meanScores([...scores.values()].flat());
  say(`all: ${JSON.stringify(overall)} (${queries.length} queries in ${seconds.toFixed(1)} s)`);
  process.stdout.write(`${JSON.stringify({ bench: 'relevance', documents: records.length, seed: SEED, kinds, overall })}\n`);
} finally {
  const versions = await listVersions(client, alias).catch(() => []);
  if (versions.length > 0) await client.indices.delete({ index: versions.join(','), ignore_unavailable: true });
  await client.close();
}
