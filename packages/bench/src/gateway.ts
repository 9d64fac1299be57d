// `npm run bench:gateway`: the same seeded request mix straight to the catalogue service and
// through the gateway with a valid API key (concurrency 32, 20 s each), both real processes over
// the real catalogue in Elasticsearch. Prints both throughputs, p50/p99, the ratio and the
// gateway's RSS; the last line is one JSON object. Target: throughput ratio ≥ 0.85.
//
// Options (env): BENCH_DURATION_S (20 per side), BENCH_SEGMENTS (4 per side), BENCH_CONCURRENCY (32), BENCH_WARMUP_S (10),
// ELASTICSEARCH_URL (dev cluster, http://127.0.0.1:9200, started if it is the default and down),
// BENCH_LOG_LEVEL (info: both services log every request, as in production).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { newLatencyHistogram, runLoad, type LoadRequest, type LoadResult } from './load.ts';
import { pick } from './random.ts';
import {
  createBenchKey,
  cursorSecret,
  DEFAULT_ES,
  ensureElasticsearch,
  ROOT,
  run,
  say as sayAs,
  startService as startBenchService,
  stopChildren,
} from './support.ts';
import { freePort, waitForHealthy } from '@fragrance/testkit';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 20);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? 10);
/** Segments per side; each side runs DURATION_S in total. */
const SEGMENTS = Number(process.env.BENCH_SEGMENTS ?? 4);
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL ?? 'info';
const ELASTICSEARCH_URL = process.env.ELASTICSEARCH_URL ?? DEFAULT_ES;
const ALIAS = 'fragrances';

const say = (message: string) => sayAs('gateway', message);

async function catalogueCount(): Promise<number> {
  try {
    const res = await fetch(`${ELASTICSEARCH_URL}/${ALIAS}/_count`, { signal: AbortSignal.timeout(5_000) });
    return res.ok ? ((await res.json()) as { count: number }).count : 0;
  } catch {
    return 0;
  }
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1] ?? 0);
  return Math.round(kb / 102.4) / 10;
}

/** CPU seconds (user + system) a process has used so far. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  // utime and stime are fields 14 and 15 of /proc/<pid>/stat, in clock ticks (100 per second).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

interface Sample {
  ids: string[];
  brands: string[];
}

/** Real ids and brands from the catalogue, so the mix hits real documents. */
async function sampleCatalogue(catalogueUrl: string): Promise<Sample> {
  const ids = new Set<string>();
  const brands = new Set<string>();
  for (const query of ['rose', 'vanilla', 'oud', 'citrus', 'amber', 'musk', 'iris', 'vetiver', 'leather', 'jasmine']) {
    const res = await fetch(`${catalogueUrl}/v1/fragrances?query=${query}&limit=50`);
    if (res.status !== 200) throw new Error(`catalogue search answered ${res.status}: ${await res.text()}`);
    const body = (await res.json()) as { data: { id: string; brand: string }[] };
    for (const item of body.data) {
      ids.add(item.id);
      brands.add(item.brand);
    }
  }
  if (ids.size === 0) throw new Error('the catalogue returned no fragrances to sample');
  return { ids: [...ids], brands: [...brands] };
}

const WORDS = [
  'rose',
  'vanila',
  'oud',
  'bergamot',
  'sandalwood',
  'hermes',
  'tobacco',
  'fig',
  'neroli',
  'patchouli',
  'lavender',
  'incense',
  'pepper',
  'cedre',
  'tuberose',
];
const CONCENTRATIONS = ['edp', 'edt', 'Parfum', 'Extrait de Parfum', 'Eau de Cologne'];
const COUNTRIES = ['fr', 'it', 'us', 'gb', 'ae', 'au'];

/** The seeded mix: mostly searches (text, filters, ranges, pages), a third detail reads. */
function requestMix(sample: Sample): (random: () => number) => LoadRequest {
  return (random) => {
    const roll = random();
    if (roll < 0.35) return { path: `/v1/fragrances/${pick(random, sample.ids)}` };
    const params = new URLSearchParams();
    if (roll < 0.75) params.set('query', pick(random, WORDS));
    if (random() < 0.25) params.set('brand', pick(random, sample.brands));
    if (random() < 0.2) params.set('concentration', pick(random, CONCENTRATIONS));
    if (random() < 0.2) params.set('country', pick(random, COUNTRIES));
    if (random() < 0.3) {
      const from = 1950 + Math.floor(random() * 60);
      params.set('year_from', String(from));
      params.set('year_to', String(from + Math.floor(random() * 20)));
    }
    params.set('limit', String(pick(random, [10, 20, 20, 50, 100])));
    if (random() < 0.2) params.set('offset', String(Math.floor(random() * 200)));
    return { path: `/v1/fragrances?${params.toString()}` };
  };
}

const perRequest = (seconds: number, requests: number) => Math.round((seconds * 1_000_000) / Math.max(1, requests)) / 1000;

/**
 * The segments of one side: throughput over their total time; latency percentiles over every
 * measured request (one histogram per side, so the last segment's percentiles are the merged ones).
 */
function combine(segments: LoadResult[]) {
  const sum = (f: (r: LoadResult) => number) => segments.reduce((acc, r) => acc + f(r), 0);
  const merged = segments.at(-1)!;
  const statuses: Record<string, number> = {};
  for (const r of segments) for (const [status, n] of Object.entries(r.statuses)) statuses[status] = (statuses[status] ?? 0) + n;
  return {
    rps: Math.round((sum((r) => r.requests) / sum((r) => r.duration_s)) * 10) / 10,
    p50_ms: merged.p50_ms,
    p99_ms: merged.p99_ms,
    requests: sum((r) => r.requests),
    errors: sum((r) => r.errors),
    statuses,
    segments_rps: segments.map((r) => r.rps),
  };
}

async function main(): Promise<void> {
  ensureElasticsearch(ELASTICSEARCH_URL);
  if ((await catalogueCount()) < 1_000) {
    say('no catalogue behind the fragrances alias yet: generating and ingesting it (npm run ops -- catalogue generate / ingest)');
    if (!existsSync(`${ROOT}data/generated/catalogue.ndjson`))
      run('catalogue generate', process.execPath, ['packages/ops/src/cli.ts', 'catalogue', 'generate']);
    run('catalogue ingest', process.execPath, ['packages/ops/src/cli.ts', 'catalogue', 'ingest'], { ELASTICSEARCH_URL });
  }
  const documents = await catalogueCount();
  if (documents < 1_000) throw new Error(`the ${ALIAS} alias holds ${documents} documents; load the catalogue first`);

  // A Redis of the bench's own (AOF like every instance), never the dev or test one.
  const redisPort = await freePort();
  const redisName = `bench-gateway-${redisPort}`;
  run('starting the bench Redis', 'bash', ['infra/redis.sh', 'start', '--name', redisName, '--port', String(redisPort)]);
  const redisUrl = `redis://127.0.0.1:${redisPort}`;
  try {
    const [cataloguePort, gatewayPort] = [await freePort(), await freePort()];
    const catalogueUrl = `http://127.0.0.1:${cataloguePort}`;
    const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
    const catalogue = startBenchService(
      'catalogue',
      {
        PORT: String(cataloguePort),
        ELASTICSEARCH_URL,
        LOG_LEVEL,
        CURSOR_SECRET: cursorSecret(),
        REDIS_URL: redisUrl,
        JOBS_PREFIX: 'bench',
      },
      'gateway',
    );
    const gateway = startBenchService(
      'gateway',
      { PORT: String(gatewayPort), REDIS_URL: redisUrl, CATALOGUE_SERVICE_URL: catalogueUrl, LOG_LEVEL },
      'gateway',
    );
    await waitForHealthy(catalogueUrl, 60_000);
    await waitForHealthy(gatewayUrl, 60_000);

    const apiKey = createBenchKey(redisUrl);

    const sample = await sampleCatalogue(catalogueUrl);
    say(
      `${documents} documents; sampled ${sample.ids.length} ids and ${sample.brands.length} brands; concurrency ${CONCURRENCY}, ${DURATION_S} s each`,
    );
    const mix = requestMix(sample);
    const histograms = { direct: newLatencyHistogram(), gateway: newLatencyHistogram() };
    const segment = (side: 'direct' | 'gateway', url: string, headers: Record<string, string> = {}) =>
      runLoad({
        url,
        headers,
        concurrency: CONCURRENCY,
        durationMs: (DURATION_S * 1_000) / SEGMENTS,
        warmupMs: 1_000,
        seed: 7,
        next: mix,
        histogram: histograms[side],
      });
    const keyHeader = { authorization: `Bearer ${apiKey}` };

    // Elasticsearch's caches and the JIT warm up first, unmeasured, so neither side gets them.
    say(`warming up for ${WARMUP_S} s…`);
    await runLoad({ url: gatewayUrl, headers: keyHeader, concurrency: CONCURRENCY, durationMs: WARMUP_S * 1_000, seed: 3, next: mix });

    // Short segments in ABBA order (direct, gateway, gateway, direct, …), so drift and bursts in a
    // shared machine's load fall on both sides alike.
    const rss: number[] = [];
    const sampler = setInterval(() => gateway.pid && rss.push(rssMb(gateway.pid)), 500);
    const results: { direct: LoadResult[]; gateway: LoadResult[] } = { direct: [], gateway: [] };
    const order = Array.from({ length: SEGMENTS }, (_, i) =>
      i % 2 === 0 ? (['direct', 'gateway'] as const) : (['gateway', 'direct'] as const),
    ).flat();
    const cpu = { gateway: 0, catalogueDirect: 0, catalogueViaGateway: 0 };
    for (const side of order) {
      const before = { gateway: cpuSeconds(gateway.pid!), catalogue: cpuSeconds(catalogue.pid!) };
      const result = side === 'direct' ? await segment(side, catalogueUrl) : await segment(side, gatewayUrl, keyHeader);
      if (side === 'gateway') {
        cpu.gateway += cpuSeconds(gateway.pid!) - before.gateway;
        cpu.catalogueViaGateway += cpuSeconds(catalogue.pid!) - before.catalogue;
      } else {
        cpu.catalogueDirect += cpuSeconds(catalogue.pid!) - before.catalogue;
      }
      say(`${side.padEnd(7)}: ${result.rps} req/s, errors ${result.errors}`);
      results[side].push(result);
    }
    clearInterval(sampler);
    const direct = combine(results.direct);
    const viaGateway = combine(results.gateway);

    const me = (await (await fetch(`${gatewayUrl}/v1/me`, { headers: { authorization: `Bearer ${apiKey}` } })).json()) as {
      used_today: number;
    };
    const ratio = Math.round((viaGateway.rps / direct.rps) * 1000) / 1000;
    const result = {
      bench: 'gateway',
      concurrency: CONCURRENCY,
      duration_s: DURATION_S,
      log_level: LOG_LEVEL,
      documents,
      direct,
      gateway: viaGateway,
      ratio,
      target_ratio: 0.85,
      meets_target: ratio >= 0.85,
      p50_overhead_ms: Math.round((viaGateway.p50_ms - direct.p50_ms) * 1000) / 1000,
      // CPU per request (includes each segment's 1 s warm-up, so slightly high): robust to the
      // machine's other load, unlike throughput.
      cpu_ms_per_request: {
        gateway: perRequest(cpu.gateway, viaGateway.requests),
        catalogue_direct: perRequest(cpu.catalogueDirect, direct.requests),
        catalogue_via_gateway: perRequest(cpu.catalogueViaGateway, viaGateway.requests),
      },
      gateway_rss_mb: { max: Math.max(...rss), end: gateway.pid ? rssMb(gateway.pid) : null },
      // Every admitted request was counted once: warm-up plus the measured ones.
      metered_requests: me.used_today,
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await stopChildren();
    spawnSync('bash', ['infra/redis.sh', 'stop', '--name', redisName, '--port', String(redisPort)], { cwd: ROOT });
    const localDir = process.env.FRAGRANCE_LOCAL_DIR ?? `${ROOT}.local`;
    rmSync(`${localDir}/redis/${redisName}`, { recursive: true, force: true });
    rmSync(`${localDir}/redis/.${redisName}.lock`, { force: true });
  }
}

process.on('SIGINT', () => void stopChildren().then(() => process.exit(130)));
try {
  await main();
} catch (error) {
  say(error instanceof Error ? error.message : String(error));
  await stopChildren();
  process.exitCode = 1;
}
