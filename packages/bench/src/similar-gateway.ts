// Similar through the gateway (issue 38's "p50 through the gateway at concurrency 1 no slower than
// today's"): the catalogue as it is now and the catalogue of SIMILAR_BASELINE_COMMIT (the similar
// before issue 38: one term query, no reasons, no vectors), each behind a gateway of today's code,
// both real processes on the same alias and Redis, their response and edge caches off so every
// answer is computed. The same sources are asked of both in one interleaved run (which side goes
// first alternates), one request at a time.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { Client } from '@elastic/elasticsearch';
import { materialiseSimilar, type MaterialiseResult } from '@fragrance/search';
import { freePort, waitForHealthy } from '@fragrance/testkit';
import {
  createBenchKey,
  cursorSecret,
  localDir,
  ROOT,
  startBenchRedis,
  startBenchService,
  stopBenchRedis,
  stopChildren,
} from './support.ts';

/** The last commit before issue 38 changed similar (`git log -- packages/search/src/similar.ts`). */
export const SIMILAR_BASELINE_COMMIT = 'ab4f2c5d91d5c5e1fb0a3f481ad71df1b1a49905';

export interface LatencyFigures {
  p50_ms: number;
  p90_ms: number;
}

export interface SimilarGatewayFigures extends LatencyFigures {
  requests: number;
  baseline: LatencyFigures & { commit: string };
  /** p50 now / p50 of the baseline: ≤ 1 is no slower. */
  p50_ratio: number;
  /**
   * The control: the detail of the same ids (GET /v1/fragrances/{id}, unchanged by issue 38) on
   * both sides, in the same rounds: what the catalogue's other changes since the baseline cost.
   */
  detail: { p50_ms: number; baseline_p50_ms: number; p50_ratio: number };
  /** The pass that computed the alias's materialised similar lists first (`current`: they already were). */
  materialised: Pick<MaterialiseResult, 'outcome' | 'records'> & { seconds: number };
}

/**
 * Today's similar answers unfiltered requests from materialised lists (docs/search.md), which the
 * worker computes in production: the bench computes them over the alias first, unbounded (nothing
 * else is measured meanwhile), or finds them current.
 */
async function materialise(
  alias: string,
  elasticsearchUrl: string,
  say: (message: string) => void,
): Promise<SimilarGatewayFigures['materialised']> {
  const client = new Client({ node: elasticsearchUrl, requestTimeout: 120_000 });
  try {
    const started = performance.now();
    const result = await materialiseSimilar({ client, alias, ratePerSecond: 0 });
    const seconds = Math.round((performance.now() - started) / 100) / 10;
    say(`similar lists of ${alias}: ${result.outcome}${result.records ? `, ${result.records} records in ${seconds} s` : ''}`);
    if (result.outcome !== 'complete' && result.outcome !== 'current') throw new Error(`materialising ${alias}: ${result.outcome}`);
    return { outcome: result.outcome, records: result.records, seconds };
  } finally {
    await client.close();
  }
}

const round2 = (x: number) => Math.round(x * 100) / 100;

function latencyFigures(ms: readonly number[]): LatencyFigures {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(s.length * q))] ?? 0;
  return { p50_ms: round2(at(0.5)), p90_ms: round2(at(0.9)) };
}

/**
 * The baseline commit's services/catalogue and packages, extracted once under .local (git archive,
 * the shared tree's git state untouched), with the workspace's node_modules link farms copied in
 * so `@fragrance/*` resolves to the extracted packages and everything else to the installed store.
 */
function baselineTree(commit: string): string {
  const dir = `${localDir()}/bench/similar-baseline-${commit.slice(0, 12)}`;
  if (existsSync(`${dir}/services/catalogue/src/main.ts`)) return dir;
  const staging = `${dir}.partial`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  const archive = spawnSync('bash', ['-c', `git archive ${commit} services/catalogue packages | tar -x -C '${staging}'`], { cwd: ROOT });
  if (archive.status !== 0) throw new Error(`extracting ${commit}: ${archive.stderr.toString()}`);
  symlinkSync(`${ROOT}node_modules`, `${staging}/node_modules`);
  const workspaces = ['services/catalogue', ...readdirSync(`${staging}/packages`).map((p) => `packages/${p}`)];
  for (const workspace of workspaces)
    if (existsSync(`${ROOT}${workspace}/node_modules`))
      cpSync(`${ROOT}${workspace}/node_modules`, `${staging}/${workspace}/node_modules`, { recursive: true, verbatimSymlinks: true });
  renameSync(staging, dir);
  return dir;
}

interface Side {
  name: 'now' | 'baseline';
  gatewayUrl: string;
}

async function startSide(name: Side['name'], entry: string, base: { alias: string; elasticsearchUrl: string; redisUrl: string }) {
  const [cataloguePort, gatewayPort] = [await freePort(), await freePort()];
  const catalogueUrl = `http://127.0.0.1:${cataloguePort}`;
  startBenchService(
    'catalogue',
    {
      PORT: String(cataloguePort),
      ELASTICSEARCH_URL: base.elasticsearchUrl,
      CATALOGUE_ALIAS: base.alias,
      CURSOR_SECRET: cursorSecret(),
      REDIS_URL: base.redisUrl,
      JOBS_PREFIX: 'bench-similar',
      // Similar embeds nothing (it reads the source's stored vector): no model to load.
      EMBEDDINGS_ENABLED: 'false',
      RESPONSE_CACHE_MAX_BYTES: '0',
    },
    'relevance',
    entry,
  );
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  startBenchService(
    'gateway',
    {
      PORT: String(gatewayPort),
      REDIS_URL: base.redisUrl,
      CATALOGUE_SERVICE_URL: catalogueUrl,
      JOBS_PREFIX: 'bench-similar',
      CATALOGUE_ALIAS: base.alias,
      EDGE_CACHE_MAX_BYTES: '0',
    },
    'relevance',
  );
  await waitForHealthy(catalogueUrl, 90_000);
  await waitForHealthy(gatewayUrl, 90_000);
  return { name, gatewayUrl };
}

async function ask(side: Side, id: string, apiKey: string, path: 'similar' | 'detail' = 'similar'): Promise<number> {
  const started = performance.now();
  const url = `${side.gatewayUrl}/v1/fragrances/${id}${path === 'similar' ? '/similar?limit=10' : ''}`;
  const response = await fetch(url, { headers: { authorization: `Bearer ${apiKey}` } });
  const body = (await response.json()) as { data?: unknown[]; id?: string };
  const ms = performance.now() - started;
  if (response.status !== 200 || (path === 'similar' ? !Array.isArray(body.data) : body.id !== id))
    throw new Error(`${side.name} ${path} ${id}: ${response.status}`);
  return ms;
}

/**
 * p50 and p90 of `GET /v1/fragrances/{id}/similar?limit=10` through the gateway, now and at the
 * baseline commit, each id asked `rounds` times of each side, one request at a time.
 */
export async function similarThroughGateway({
  alias,
  elasticsearchUrl,
  ids,
  rounds,
  say,
}: {
  alias: string;
  elasticsearchUrl: string;
  ids: readonly string[];
  rounds: number;
  say: (message: string) => void;
}): Promise<SimilarGatewayFigures> {
  const baseline = baselineTree(SIMILAR_BASELINE_COMMIT);
  const materialised = await materialise(alias, elasticsearchUrl, say);
  const redis = await startBenchRedis('similar');
  try {
    const base = { alias, elasticsearchUrl, redisUrl: redis.url };
    const sides = [
      await startSide('now', 'services/catalogue/src/main.ts', base),
      await startSide('baseline', `${baseline}/services/catalogue/src/main.ts`, base),
    ];
    const apiKey = createBenchKey(redis.url);
    say(
      `similar through the gateway: now and ${SIMILAR_BASELINE_COMMIT.slice(0, 7)} (before issue 38), ${ids.length} ids × ${rounds} rounds`,
    );
    // Warm-up: connections, JIT, the rarity table, Elasticsearch's caches.
    for (const id of ids.slice(0, 20)) for (const side of sides) await ask(side, id, apiKey);
    const latencies: Record<Side['name'], number[]> = { now: [], baseline: [] };
    const details: Record<Side['name'], number[]> = { now: [], baseline: [] };
    let turn = 0;
    for (let r = 0; r < rounds; r++)
      for (const id of ids) {
        const order = turn++ % 2 ? [...sides].reverse() : sides;
        for (const side of order) latencies[side.name].push(await ask(side, id, apiKey));
        for (const side of order) details[side.name].push(await ask(side, id, apiKey, 'detail'));
      }
    const now = latencyFigures(latencies.now);
    const before = latencyFigures(latencies.baseline);
    const detailNow = latencyFigures(details.now).p50_ms;
    const detailBefore = latencyFigures(details.baseline).p50_ms;
    const ratio = (a: number, b: number) => Math.round((a / b) * 1000) / 1000;
    return {
      requests: latencies.now.length,
      ...now,
      baseline: { commit: SIMILAR_BASELINE_COMMIT.slice(0, 12), ...before },
      p50_ratio: ratio(now.p50_ms, before.p50_ms),
      detail: { p50_ms: detailNow, baseline_p50_ms: detailBefore, p50_ratio: ratio(detailNow, detailBefore) },
      materialised,
    };
  } finally {
    await stopChildren();
    stopBenchRedis(redis);
  }
}
