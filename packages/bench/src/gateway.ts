// `npm run bench:gateway`: the same seeded request mix straight to the catalogue service and
// through the gateway with a valid API key (concurrency 32, 20 s each), both real processes over
// the real catalogue in Elasticsearch. Prints both throughputs, p50/p99, the ratio and the
// gateway's RSS; the last line is one JSON object. Target: throughput ratio ≥ 0.85.
//
// Options (env): BENCH_DURATION_S (20 per side), BENCH_SEGMENTS (4 per side), BENCH_CONCURRENCY (32), BENCH_WARMUP_S (10),
// ELASTICSEARCH_URL (dev cluster, http://127.0.0.1:9200, started if it is the default and down),
// BENCH_LOG_LEVEL (info: both services log every request, as in production),
// BENCH_METRICS_OFF=1 (a second gateway with METRICS_ENABLED=false joins the same interleaved
// segments; prints the throughput and CPU ratio metrics on / off, target ≥ 0.97),
// BENCH_CPU_PROFILE_DIR (the gateway runs with --cpu-prof and writes its profile there on exit),
// BENCH_DRIVER (client: the mix through @fragrance/client over the load's undici pool; raw: the
// same requests as bare pool requests, to measure the client's cost to the load generator).
// The machine's load average is printed with the figures: on a shared machine the CPU per request
// and the interleaved ratios are the robust figures, not absolute throughput.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { newLatencyHistogram, runLoad, type ClientCall, type LoadRequest, type LoadResult } from './load.ts';
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
import { createFragranceClient, type SearchQuery } from '@fragrance/client';
import { freePort, waitForHealthy } from '@fragrance/testkit';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 20);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? 10);
/** Segments per side; each side runs DURATION_S in total. */
const SEGMENTS = Number(process.env.BENCH_SEGMENTS ?? 4);
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL ?? 'info';
const ELASTICSEARCH_URL = process.env.ELASTICSEARCH_URL ?? DEFAULT_ES;
const ALIAS = 'fragrances';
const COMPARE_METRICS = process.env.BENCH_METRICS_OFF === '1';
const PROFILE_DIR = process.env.BENCH_CPU_PROFILE_DIR;
/**
 * BENCH_DRIVER: `client` (default) sends the mix through @fragrance/client over the load's undici
 * pool, as customers call the API; `raw` sends the same requests as bare pool requests (the
 * driver before the client), to measure what the client costs the load generator.
 */
const DRIVER = process.env.BENCH_DRIVER ?? 'client';
if (DRIVER !== 'client' && DRIVER !== 'raw') throw new Error(`BENCH_DRIVER must be client or raw, got ${DRIVER}`);
/** Targets of issue 13 (gateway cost) and issue 12 (metrics cost). */
const TARGETS = { ratio: 0.9, gateway_cpu_ms_per_request: 0.4, gateway_rss_mb: 200, metrics_on_off: 0.97 };

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
  // The catalogue serves the same /v1 contract behind the gateway, without keys.
  const catalogue = createFragranceClient({ baseUrl: `${catalogueUrl}/v1` });
  for (const query of ['rose', 'vanilla', 'oud', 'citrus', 'amber', 'musk', 'iris', 'vetiver', 'leather', 'jasmine']) {
    const body = await catalogue.search({ query, limit: 50 });
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
const CONCENTRATIONS = ['Eau de Parfum', 'Eau de Toilette', 'Parfum', 'Extrait de Parfum', 'Eau de Cologne'] as const;
const COUNTRIES = ['fr', 'it', 'us', 'gb', 'ae', 'au'];

type MixItem = { kind: 'detail'; id: string } | { kind: 'search'; query: SearchQuery };

/** The seeded mix: mostly searches (text, filters, ranges, pages), a third detail reads. */
function requestMix(sample: Sample): (random: () => number) => MixItem {
  return (random) => {
    const roll = random();
    if (roll < 0.35) return { kind: 'detail', id: pick(random, sample.ids) };
    const query: SearchQuery = {};
    if (roll < 0.75) query.query = pick(random, WORDS);
    if (random() < 0.25) query.brand = pick(random, sample.brands);
    if (random() < 0.2) query.concentration = pick(random, CONCENTRATIONS);
    if (random() < 0.2) query.country = pick(random, COUNTRIES);
    if (random() < 0.3) {
      const from = 1950 + Math.floor(random() * 60);
      query.year_from = from;
      query.year_to = from + Math.floor(random() * 20);
    }
    query.limit = pick(random, [10, 20, 20, 50, 100]);
    if (random() < 0.2) query.offset = Math.floor(random() * 200);
    return { kind: 'search', query };
  };
}

/** A mix item through the typed client… */
const asCall = (item: MixItem): ClientCall =>
  item.kind === 'detail' ? (client) => client.fragrance(item.id) : (client) => client.search(item.query);
/** …or as the bare request the client would send (BENCH_DRIVER=raw). */
const asRaw = (item: MixItem): LoadRequest =>
  item.kind === 'detail'
    ? { path: `/v1/fragrances/${item.id}` }
    : {
        path: `/v1/fragrances?${new URLSearchParams(Object.entries(item.query).map(([k, v]): [string, string] => [k, String(v)])).toString()}`,
      };

type Side = 'direct' | 'gateway' | 'gateway_off';

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

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
      {
        PORT: String(gatewayPort),
        REDIS_URL: redisUrl,
        CATALOGUE_SERVICE_URL: catalogueUrl,
        LOG_LEVEL,
        ...(PROFILE_DIR ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${PROFILE_DIR}` } : {}),
      },
      'gateway',
    );
    // The same gateway with metrics off, on the same catalogue and Redis (BENCH_METRICS_OFF=1).
    const offPort = COMPARE_METRICS ? await freePort() : undefined;
    const gatewayOffUrl = offPort === undefined ? undefined : `http://127.0.0.1:${offPort}`;
    const gatewayOff =
      offPort === undefined
        ? undefined
        : startBenchService(
            'gateway',
            { PORT: String(offPort), REDIS_URL: redisUrl, CATALOGUE_SERVICE_URL: catalogueUrl, LOG_LEVEL, METRICS_ENABLED: 'false' },
            'gateway',
          );
    await waitForHealthy(catalogueUrl, 60_000);
    await waitForHealthy(gatewayUrl, 60_000);
    if (gatewayOffUrl) await waitForHealthy(gatewayOffUrl, 60_000);

    const apiKey = createBenchKey(redisUrl);

    const sample = await sampleCatalogue(catalogueUrl);
    say(
      `${documents} documents; sampled ${sample.ids.length} ids and ${sample.brands.length} brands; concurrency ${CONCURRENCY}, ${DURATION_S} s each`,
    );
    const items = requestMix(sample);
    const mix = DRIVER === 'raw' ? (random: () => number) => asRaw(items(random)) : (random: () => number) => asCall(items(random));

    const histograms = { direct: newLatencyHistogram(), gateway: newLatencyHistogram(), gateway_off: newLatencyHistogram() };
    const segment = (side: Side, url: string, headers: Record<string, string> = {}) =>
      runLoad({
        url,
        headers,
        // The client sends the key itself; the raw driver sends `headers`.
        ...(headers.authorization ? { apiKey } : {}),
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
    if (gatewayOffUrl)
      await runLoad({ url: gatewayOffUrl, headers: keyHeader, concurrency: CONCURRENCY, durationMs: 2_000, seed: 3, next: mix });

    // Short segments in ABBA order (direct, gateway, gateway, direct, …), so drift and bursts in a
    // shared machine's load fall on both sides alike.
    // From here the driver's CPU counts, against the measured requests (segment warm-ups included).
    const driverCpu0 = process.cpuUsage();
    let driverRequests = 0;
    const rss: number[] = [];
    const sampler = setInterval(() => gateway.pid && rss.push(rssMb(gateway.pid)), 500);
    const results: Record<Side, LoadResult[]> = { direct: [], gateway: [], gateway_off: [] };
    const sides: Side[] = gatewayOffUrl ? ['direct', 'gateway', 'gateway_off'] : ['direct', 'gateway'];
    // Mirrored rounds (ABC CBA …): a linear drift (the machine's load, the catalogue's response
    // cache filling up) hits every side alike over an even number of rounds, and gateway and
    // gateway_off always run back to back, each first half of the time.
    const order = Array.from({ length: SEGMENTS }, (_, i) => (i % 2 === 0 ? sides : [...sides].reverse())).flat();
    const cpu = { gateway: 0, gatewayOff: 0, catalogueDirect: 0, catalogueViaGateway: 0 };
    const load: number[] = [];
    for (const side of order) {
      const before = {
        gateway: cpuSeconds(gateway.pid!),
        gatewayOff: gatewayOff?.pid ? cpuSeconds(gatewayOff.pid) : 0,
        catalogue: cpuSeconds(catalogue.pid!),
      };
      const result =
        side === 'direct'
          ? await segment(side, catalogueUrl)
          : await segment(side, side === 'gateway' ? gatewayUrl : (gatewayOffUrl ?? gatewayUrl), keyHeader);
      if (side === 'gateway') {
        cpu.gateway += cpuSeconds(gateway.pid!) - before.gateway;
        cpu.catalogueViaGateway += cpuSeconds(catalogue.pid!) - before.catalogue;
      } else if (side === 'gateway_off') {
        cpu.gatewayOff += (gatewayOff?.pid ? cpuSeconds(gatewayOff.pid) : 0) - before.gatewayOff;
      } else {
        cpu.catalogueDirect += cpuSeconds(catalogue.pid!) - before.catalogue;
      }
      load.push(loadavg()[0] ?? 0);
      say(`${side.padEnd(11)}: ${result.rps} req/s, errors ${result.errors}, load average ${(loadavg()[0] ?? 0).toFixed(2)}`);
      results[side].push(result);
    }
    clearInterval(sampler);
    const direct = combine(results.direct);
    const viaGateway = combine(results.gateway);
    const viaGatewayOff = gatewayOffUrl ? combine(results.gateway_off) : undefined;

    for (const side of Object.values(results)) driverRequests += side.reduce((sum, r) => sum + r.requests, 0);
    const driverCpu = process.cpuUsage(driverCpu0);
    const me = await createFragranceClient({ baseUrl: `${gatewayUrl}/v1`, apiKey }).me();
    const round3 = (x: number) => Math.round(x * 1000) / 1000;
    const ratio = round3(viaGateway.rps / direct.rps);
    const gatewayCpu = perRequest(cpu.gateway, viaGateway.requests);
    const rssMax = Math.max(...rss);
    const metricsOnOff = viaGatewayOff
      ? {
          gateway_off: viaGatewayOff,
          // Throughput on / off; and the gateway's own CPU per request off / on (≥ 0.97 alike).
          ratio: round3(viaGateway.rps / viaGatewayOff.rps),
          // Each round's on / off (the two ran back to back), and their median: one burst of the
          // machine's other load moves one round, not the figure.
          round_ratios: results.gateway.map((r, i) => round3(r.rps / (results.gateway_off[i]?.rps ?? Number.NaN))),
          median_round_ratio: round3(median(results.gateway.map((r, i) => r.rps / (results.gateway_off[i]?.rps ?? Number.NaN)))),
          cpu_ms_per_request_on_off: [gatewayCpu, perRequest(cpu.gatewayOff, viaGatewayOff.requests)],
          cpu_ratio: round3(perRequest(cpu.gatewayOff, viaGatewayOff.requests) / gatewayCpu),
          target: TARGETS.metrics_on_off,
        }
      : null;
    const result = {
      bench: 'gateway',
      concurrency: CONCURRENCY,
      duration_s: DURATION_S,
      log_level: LOG_LEVEL,
      documents,
      load_average: { mean: round3(load.reduce((a, b) => a + b, 0) / Math.max(1, load.length)), max: round3(Math.max(...load)) },
      direct,
      gateway: viaGateway,
      ratio,
      targets: TARGETS,
      meets_targets: {
        ratio: ratio >= TARGETS.ratio,
        gateway_cpu_ms_per_request: gatewayCpu <= TARGETS.gateway_cpu_ms_per_request,
        gateway_rss_mb: rssMax <= TARGETS.gateway_rss_mb,
        ...(metricsOnOff ? { metrics_on_off: metricsOnOff.ratio >= TARGETS.metrics_on_off } : {}),
      },
      p50_overhead_ms: round3(viaGateway.p50_ms - direct.p50_ms),
      // CPU per request (includes each segment's 1 s warm-up, so slightly high): robust to the
      // machine's other load, unlike throughput.
      cpu_ms_per_request: {
        gateway: gatewayCpu,
        catalogue_direct: perRequest(cpu.catalogueDirect, direct.requests),
        catalogue_via_gateway: perRequest(cpu.catalogueViaGateway, viaGateway.requests),
      },
      gateway_rss_mb: { max: rssMax, end: gateway.pid ? rssMb(gateway.pid) : null },
      metrics_on_off: metricsOnOff,
      // The load generator's own CPU per measured request (segment warm-ups included, so slightly high):
      // what BENCH_DRIVER=client costs over raw.
      driver: DRIVER,
      driver_cpu_ms_per_request: perRequest((driverCpu.user + driverCpu.system) / 1e6, driverRequests),
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
