// `npm run bench:gateway`: the same seeded request mix straight to the catalogue service and
// through the gateway with a valid API key (concurrency 32, 20 s each), both real processes over
// the real catalogue in Elasticsearch. Prints both throughputs, p50/p99, the ratio and the
// gateway's RSS; the last line is one JSON object. Targets (TARGETS below, issue 13 part 5): ratio ≥ 0.9,
// ≤ 0.4 ms of gateway CPU per request, ≤ 200 MB RSS.
//
// Options (env): BENCH_DURATION_S (20 per side), BENCH_SEGMENTS (4 per side), BENCH_CONCURRENCY (32), BENCH_WARMUP_S (10),
// ELASTICSEARCH_URL (dev cluster, http://127.0.0.1:9200, started if it is the default and down),
// BENCH_LOG_LEVEL (info: both services log every request, as in production),
// BENCH_METRICS_OFF=1 (a second gateway with METRICS_ENABLED=false joins the same interleaved
// segments; prints the throughput and CPU ratio metrics on / off, target ≥ 0.97),
// BENCH_CPU_PROFILE_DIR (the gateway runs with --cpu-prof and writes its profile there on exit),
// BENCH_DRIVER (client: the mix through @fragrance/client over the load's undici pool; raw: the
// same requests as bare pool requests, to measure the client's cost to the load generator),
// BENCH_SEARCH (lexical: the catalogue runs with EMBEDDINGS_ENABLED=false; hybrid: as deployed),
// BENCH_CATALOGUE_CACHE=1 (keep the catalogue's response cache; off by default, see below),
// BENCH_BASELINE_SRC (a directory holding another gateway's main.ts, e.g. an earlier commit's
// services/gateway/src with services/gateway/node_modules linked beside it: it joins the same
// rotating segments as `baseline`, so before and after are measured in one run),
// BENCH_GATEWAY_NODE_OPTIONS / BENCH_BASELINE_NODE_OPTIONS (node flags of either gateway),
// BENCH_BASELINE_ENV (JSON: variables of the baseline gateway only; with BENCH_BASELINE_SRC set to
// services/gateway/src it measures one setting against another in one run),
// BENCH_FLOOR=1 (floor-edge.ts, the least a Node.js edge that counts each request in Redis can do,
// joins the same rotating segments as `floor`: what the gateway costs above it is its own),
// BENCH_KEYS=publishable (the same mix with a publishable key from an allowed page origin joins the
// same rotating segments as `publishable`, on the same gateway: `keys` compares its CPU per request
// and latency with the secret key's; target ≤ 1.1×; needs the raw driver, its default then).
// The machine's load average is printed with the figures: on a shared machine the CPU per request
// and the interleaved ratios are the robust figures, not absolute throughput.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import type { Histogram } from 'hdr-histogram-js';
import { newLatencyHistogram, runLoad, type ClientCall, type LoadRequest, type LoadResult } from './load.ts';
import { pick } from './random.ts';
import {
  createBenchKey,
  cursorSecret,
  ensureElasticsearch,
  ROOT,
  run,
  runBench,
  say as sayAs,
  startBenchRedis,
  startBenchService,
  stopBenchRedis,
  stopChildren,
} from './support.ts';
import { createFragranceClient, type SearchQuery } from '@fragrance/client';
import { freePort, waitForHealthy } from '@fragrance/testkit';
import { benchConfig, GatewayBenchConfig, inheritedEnv } from './config.ts';

const config = benchConfig(GatewayBenchConfig);
const ALIAS = 'fragrances';
/**
 * BENCH_DRIVER: `client` (default) sends the mix through @fragrance/client over the load's undici
 * pool, as customers call the API; `raw` sends the same requests as bare pool requests (the
 * driver before the client), to measure what the client costs the load generator.
 */
const DRIVER = config.BENCH_DRIVER ?? (config.BENCH_KEYS ? 'raw' : 'client');
// The client sends only the key: a page's Origin needs the raw driver's headers.
if (config.BENCH_KEYS && DRIVER !== 'raw') throw new Error('BENCH_KEYS=publishable needs BENCH_DRIVER=raw (the client sends no Origin)');
/** The page origin the publishable key allows and the publishable side sends. */
const PAGE_ORIGIN = 'https://bench-shop.example';
/** Targets of issue 13 (gateway cost) and issue 12 (metrics cost). */
const TARGETS = { ratio: 0.9, gateway_cpu_ms_per_request: 0.4, gateway_rss_mb: 200, metrics_on_off: 0.97, publishable_over_secret: 1.1 };

const say = (message: string) => sayAs('gateway', message);
/** The BENCH_BASELINE_SRC gateway (not one of support.ts's children, so stopped here). */
let baseline: ChildProcess | undefined;
const stopBaseline = async () => {
  const child = baseline;
  if (child?.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
};

async function catalogueCount(): Promise<number> {
  try {
    const res = await fetch(`${config.ELASTICSEARCH_URL}/${ALIAS}/_count`, { signal: AbortSignal.timeout(5_000) });
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

/** CPU seconds (user + system) a process has used so far… */
function cpuSeconds(pid: number): number {
  const { user, system } = cpuSplit(pid);
  return user + system;
}

/** …and the two apart: system time is mostly the kernel's side of the process's sockets. */
function cpuSplit(pid: number): { user: number; system: number } {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  // utime and stime are fields 14 and 15 of /proc/<pid>/stat, in clock ticks (100 per second).
  return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100 };
}

/** Resident memory by kind (MB): anonymous (heaps, malloc) and file-backed (the node binary's code). */
function rssSplit(pid: number): { anonymous: number; file: number } {
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(rollup)?.[1] ?? 0);
  return { anonymous: Math.round(kb('Anonymous') / 102.4) / 10, file: Math.round((kb('Rss') - kb('Anonymous')) / 102.4) / 10 };
}

/**
 * The gateway's memory from its own runtime metrics (prom-client's defaults), in MB: RSS, the V8
 * heap and each of its spaces, and memory outside the heap (buffers).
 */
async function memoryBreakdown(metricsPort: number): Promise<Record<string, number> | null> {
  try {
    const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`, { signal: AbortSignal.timeout(5_000) });
    const text = await res.text();
    const mb = (pattern: RegExp) => {
      const value = pattern.exec(text)?.[1];
      return value === undefined ? Number.NaN : Math.round(Number(value) / 104857.6) / 10;
    };
    const figures: Record<string, number> = {
      rss: mb(/^process_resident_memory_bytes\{[^}]*\} (\S+)$/m),
      heap_total: mb(/^nodejs_heap_size_total_bytes\{[^}]*\} (\S+)$/m),
      heap_used: mb(/^nodejs_heap_size_used_bytes\{[^}]*\} (\S+)$/m),
      external: mb(/^nodejs_external_memory_bytes\{[^}]*\} (\S+)$/m),
    };
    for (const match of text.matchAll(/^nodejs_heap_space_size_total_bytes\{[^}]*space="(\w+)"[^}]*\} (\S+)$/gm))
      figures[`space_${match[1]}`] = Math.round(Number(match[2]) / 104857.6) / 10;
    return figures;
  } catch {
    return null;
  }
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

type Side = 'direct' | 'gateway' | 'gateway_off' | 'baseline' | 'floor' | 'publishable';

/**
 * A publishable key (issue 34) for the publishable side: allowed from PAGE_ORIGIN, with a visitor
 * bucket and quota that never bind (the load comes from one address) and the mix's largest limit.
 */
function createPublishableBenchKey(redisUrl: string): string {
  const created = run(
    'creating the bench publishable key',
    process.execPath,
    [
      ...['packages/ops/src/cli.ts', 'keys', 'create', '--publishable', '--owner', 'bench', '--quota', '1000000000'],
      ...['--origin', PAGE_ORIGIN, '--visitor-burst', '1000000', '--visitor-refill', '1000000', '--max-limit', '100', '--json'],
    ],
    { REDIS_URL: redisUrl },
  );
  return (JSON.parse(created) as { api_key: string }).api_key;
}

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

/** Loads the catalogue when the alias is (nearly) empty; the documents behind it. */
async function prepareCatalogue(): Promise<number> {
  if ((await catalogueCount()) < 1_000) {
    say('no catalogue behind the fragrances alias yet: generating and ingesting it (npm run ops -- catalogue generate / ingest)');
    if (!existsSync(`${ROOT}data/generated/catalogue.ndjson`))
      run('catalogue generate', process.execPath, ['packages/ops/src/cli.ts', 'catalogue', 'generate']);
    run('catalogue ingest', process.execPath, ['packages/ops/src/cli.ts', 'catalogue', 'ingest'], {
      ELASTICSEARCH_URL: config.ELASTICSEARCH_URL,
    });
  }
  const documents = await catalogueCount();
  if (documents < 1_000) throw new Error(`the ${ALIAS} alias holds ${documents} documents; load the catalogue first`);
  return documents;
}

/** A process the bench started and where it answers. */
interface Edge {
  url: string;
  pid: number | undefined;
}

/** The catalogue and every edge in front of it, on the same Redis. */
interface Edges {
  catalogue: Edge;
  gateway: Edge;
  /** The gateway's known metrics port, so its memory breakdown can be read after the load. */
  metricsPort: number;
  gatewayOff?: Edge;
  floor?: Edge;
  baseline?: Edge;
}

const nodeOptions = (flags: string, profile: boolean) =>
  [profile && config.BENCH_CPU_PROFILE_DIR ? `--cpu-prof --cpu-prof-dir=${config.BENCH_CPU_PROFILE_DIR}` : '', flags]
    .filter(Boolean)
    .join(' ');
const localUrl = (port: number) => `http://127.0.0.1:${port}`;

/** The catalogue (its response cache off unless asked, see above) and the gateway in front of it. */
async function startCatalogueAndGateway(redisUrl: string): Promise<Edges> {
  const [cataloguePort, gatewayPort, metricsPort] = [await freePort(), await freePort(), await freePort()];
  const catalogue = startBenchService(
    'catalogue',
    {
      PORT: String(cataloguePort),
      ELASTICSEARCH_URL: config.ELASTICSEARCH_URL,
      LOG_LEVEL: config.BENCH_LOG_LEVEL,
      CURSOR_SECRET: cursorSecret(),
      REDIS_URL: redisUrl,
      JOBS_PREFIX: 'bench',
      EMBEDDINGS_ENABLED: String(config.BENCH_SEARCH === 'hybrid'),
      ...(config.BENCH_CATALOGUE_CACHE ? {} : { RESPONSE_CACHE_MAX_BYTES: '0' }),
    },
    'gateway',
  );
  const gateway = startBenchService(
    'gateway',
    {
      ...gatewayEnv(redisUrl, localUrl(cataloguePort)),
      PORT: String(gatewayPort),
      METRICS_PORT: String(metricsPort),
      ...(nodeOptions(config.BENCH_GATEWAY_NODE_OPTIONS, true)
        ? { NODE_OPTIONS: nodeOptions(config.BENCH_GATEWAY_NODE_OPTIONS, true) }
        : {}),
    },
    'gateway',
  );
  return {
    catalogue: { url: localUrl(cataloguePort), pid: catalogue.pid },
    gateway: { url: localUrl(gatewayPort), pid: gateway.pid },
    metricsPort,
  };
}

const gatewayEnv = (redisUrl: string, catalogueUrl: string) => ({
  REDIS_URL: redisUrl,
  CATALOGUE_SERVICE_URL: catalogueUrl,
  LOG_LEVEL: config.BENCH_LOG_LEVEL,
});

/**
 * The edges compared with the gateway in the same rounds, each on the same catalogue and Redis:
 * the gateway with metrics off (BENCH_METRICS_OFF=1), the floor (BENCH_FLOOR=1: the least a
 * Node.js edge does per request), another gateway's code (BENCH_BASELINE_SRC, e.g. the commit
 * before a change).
 */
async function startOtherEdges(edges: Edges, redisUrl: string): Promise<void> {
  const env = gatewayEnv(redisUrl, edges.catalogue.url);
  if (config.BENCH_METRICS_OFF) {
    const port = await freePort();
    const child = startBenchService('gateway', { ...env, PORT: String(port), METRICS_ENABLED: 'false' }, 'gateway');
    edges.gatewayOff = { url: localUrl(port), pid: child.pid };
  }
  if (config.BENCH_FLOOR) {
    const port = await freePort();
    const child = startBenchService(
      'floor-edge',
      { ...env, PORT: String(port), ...(config.BENCH_GATEWAY_NODE_OPTIONS ? { NODE_OPTIONS: config.BENCH_GATEWAY_NODE_OPTIONS } : {}) },
      'gateway',
      'packages/bench/src/floor-edge.ts',
    );
    edges.floor = { url: localUrl(port), pid: child.pid };
  }
  if (config.BENCH_BASELINE_SRC) {
    const port = await freePort();
    baseline = spawn(process.execPath, [`${config.BENCH_BASELINE_SRC}/main.ts`], {
      cwd: ROOT,
      env: {
        ...inheritedEnv(),
        ...env,
        PORT: String(port),
        METRICS_PORT: '0',
        NODE_OPTIONS: nodeOptions(config.BENCH_BASELINE_NODE_OPTIONS, false),
        ...config.BENCH_BASELINE_ENV,
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    edges.baseline = { url: localUrl(port), pid: baseline.pid };
  }
}

interface SideOf {
  side: Side;
  url: string;
  pid: number | undefined;
  headers: Record<string, string>;
}

/** Every side of the run: the catalogue direct, the gateway, the optional edges, and a page with a publishable key. */
function sidesOf(edges: Edges, apiKey: string, publishableKey: string | undefined): SideOf[] {
  const keyHeader = { authorization: `Bearer ${apiKey}` };
  const edgeSide = (side: Side, edge: Edge | undefined): SideOf[] => (edge ? [{ side, ...edge, headers: keyHeader }] : []);
  return [
    { side: 'direct', ...edges.catalogue, headers: {} },
    { side: 'gateway', ...edges.gateway, headers: keyHeader },
    ...edgeSide('gateway_off', edges.gatewayOff),
    ...edgeSide('baseline', edges.baseline),
    ...edgeSide('floor', edges.floor),
    // The same gateway, the same mix, from a page: a publishable key and its Origin.
    ...(publishableKey
      ? [{ side: 'publishable' as const, ...edges.gateway, headers: { authorization: `Bearer ${publishableKey}`, origin: PAGE_ORIGIN } }]
      : []),
  ];
}

/** What one run needs to drive load: the mix, the keys, the seed every segment replays. */
interface Driving {
  mix: (random: () => number) => ClientCall | LoadRequest;
  apiKey: string;
  publishableKey: string | undefined;
}
const SEED = 7;

/**
 * The JIT and Elasticsearch's caches warm up first, unmeasured, on the very sequence every segment
 * replays (the same seed), so no side meets a request Elasticsearch has not seen.
 */
async function warmUp(sides: SideOf[], gatewayUrl: string, { mix, apiKey, publishableKey }: Driving): Promise<void> {
  say(`warming up for ${config.BENCH_WARMUP_S} s…`);
  // (With the key: the client driver sends `apiKey`, not `headers`; a warm-up without it was a 401 flood.)
  const keyHeader = { authorization: `Bearer ${apiKey}` };
  const warm = (url: string, durationMs: number) =>
    runLoad({ url, headers: keyHeader, apiKey, concurrency: config.BENCH_CONCURRENCY, durationMs, seed: SEED, next: mix });
  const first = await warm(gatewayUrl, config.BENCH_WARMUP_S * 1_000);
  if (first.errors > 0) throw new Error(`the warm-up had ${first.errors} failed requests: ${JSON.stringify(first.statuses)}`);
  for (const { side, url } of sides) if (side !== 'direct' && side !== 'gateway' && side !== 'publishable') await warm(url, 3_000);
  // The publishable path's own warm-up (its origin and visitor checks), on the same sequence.
  if (publishableKey) {
    const headers = { authorization: `Bearer ${publishableKey}`, origin: PAGE_ORIGIN };
    const warmPublishable = await runLoad({
      url: gatewayUrl,
      headers,
      concurrency: config.BENCH_CONCURRENCY,
      durationMs: 3_000,
      seed: SEED,
      next: mix,
    });
    if (warmPublishable.errors > 0) throw new Error(`the publishable warm-up failed: ${JSON.stringify(warmPublishable.statuses)}`);
  }
}

/** What the measured rounds leave: each side's segments, the CPU each process spent for them, RSS and load samples. */
interface Rounds {
  results: Record<Side, LoadResult[]>;
  /** CPU seconds of each edge process while its own side ran; the catalogue's by the side it served. */
  edgeCpu: Partial<Record<Side, number>>;
  edgeSystem: Partial<Record<Side, number>>;
  catalogueCpu: Partial<Record<Side, number>>;
  rss: Partial<Record<Side, number[]>>;
  load: number[];
  /** The load generator's CPU over the measured requests. */
  driverCpu: NodeJS.CpuUsage;
  driverRequests: number;
}

/**
 * Mirrored rounds (ABC CBA …): a linear drift in the machine's load hits every side alike over an
 * even number of rounds, and neighbours run back to back, each first half of the time.
 */
async function runRounds(sides: SideOf[], cataloguePid: number, { mix, apiKey }: Driving): Promise<Rounds> {
  const histograms = Object.fromEntries(sides.map(({ side }) => [side, newLatencyHistogram()])) as Record<Side, Histogram>;
  const driverCpu0 = process.cpuUsage();
  const edges = sides.filter(({ side }) => side !== 'direct');
  const rounds: Rounds = {
    results: { direct: [], gateway: [], gateway_off: [], baseline: [], floor: [], publishable: [] },
    edgeCpu: {},
    edgeSystem: {},
    catalogueCpu: {},
    rss: Object.fromEntries(edges.map(({ side }) => [side, [] as number[]])),
    load: [],
    driverCpu: driverCpu0,
    driverRequests: 0,
  };
  const sampler = setInterval(() => {
    for (const { side, pid } of edges) if (pid) rounds.rss[side]?.push(rssMb(pid));
  }, 500);
  const order = Array.from({ length: config.BENCH_SEGMENTS }, (_, i) => (i % 2 === 0 ? sides : [...sides].reverse())).flat();
  for (const { side, url, pid, headers } of order) {
    const edgePid = side === 'direct' ? undefined : pid;
    const before = {
      edge: edgePid ? cpuSeconds(edgePid) : 0,
      catalogue: cpuSeconds(cataloguePid),
      edgeSystem: edgePid ? cpuSplit(edgePid).system : 0,
    };
    const result = await runLoad({
      url,
      headers,
      // The client sends the key itself; the raw driver sends `headers`.
      ...(headers.authorization ? { apiKey } : {}),
      concurrency: config.BENCH_CONCURRENCY,
      durationMs: (config.BENCH_DURATION_S * 1_000) / config.BENCH_SEGMENTS,
      warmupMs: 1_000,
      seed: SEED,
      next: mix,
      histogram: histograms[side],
    });
    if (edgePid) rounds.edgeSystem[side] = (rounds.edgeSystem[side] ?? 0) + cpuSplit(edgePid).system - before.edgeSystem;
    if (edgePid) rounds.edgeCpu[side] = (rounds.edgeCpu[side] ?? 0) + cpuSeconds(edgePid) - before.edge;
    rounds.catalogueCpu[side] = (rounds.catalogueCpu[side] ?? 0) + cpuSeconds(cataloguePid) - before.catalogue;
    rounds.load.push(loadavg()[0] ?? 0);
    say(`${side.padEnd(11)}: ${result.rps} req/s, errors ${result.errors}, load average ${(loadavg()[0] ?? 0).toFixed(2)}`);
    rounds.results[side].push(result);
  }
  clearInterval(sampler);
  for (const side of Object.values(rounds.results)) rounds.driverRequests += side.reduce((sum, r) => sum + r.requests, 0);
  rounds.driverCpu = process.cpuUsage(driverCpu0);
  return rounds;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;
type Figures = ReturnType<typeof combine>;

/** Each round's a / b (the two ran back to back in it), and their median. */
function roundRatios(rounds: Rounds, a: Side, b: Side) {
  const ratios = rounds.results[a].map((r, i) => r.rps / (rounds.results[b][i]?.rps ?? Number.NaN));
  return { round_ratios: ratios.map(round3), median_round_ratio: round3(median(ratios)) };
}

/** The publishable side against the secret key's (the `gateway` side): CPU per request, latency, throughput. */
function keyKindFigures(rounds: Rounds, secret: Figures, gatewayCpu: number) {
  const figures = combine(rounds.results.publishable);
  const cpu = perRequest(rounds.edgeCpu.publishable ?? 0, figures.requests);
  const over = round3(cpu / gatewayCpu);
  return {
    publishable: figures,
    cpu_ms_per_request: { secret: gatewayCpu, publishable: cpu },
    cpu_publishable_over_secret: over,
    p50_ms: { secret: secret.p50_ms, publishable: figures.p50_ms },
    p99_ms: { secret: secret.p99_ms, publishable: figures.p99_ms },
    // Throughput secret / publishable per round (they ran back to back), and the median.
    secret_over_publishable: roundRatios(rounds, 'gateway', 'publishable'),
    target: TARGETS.publishable_over_secret,
    meets_target: over <= TARGETS.publishable_over_secret,
  };
}

/** BENCH_METRICS_OFF=1: throughput on / off; and the gateway's own CPU per request off / on (≥ 0.97 alike). */
function metricsOnOffFigures(rounds: Rounds, viaGateway: Figures, gatewayCpu: number) {
  const off = combine(rounds.results.gateway_off);
  const offCpu = perRequest(rounds.edgeCpu.gateway_off ?? 0, off.requests);
  return {
    gateway_off: off,
    ratio: round3(viaGateway.rps / off.rps),
    ...roundRatios(rounds, 'gateway', 'gateway_off'),
    cpu_ms_per_request_on_off: [gatewayCpu, offCpu],
    cpu_ratio: round3(offCpu / gatewayCpu),
    target: TARGETS.metrics_on_off,
  };
}

/** Another edge's figures (the baseline, the floor), beside the gateway's in the same rounds. */
function otherEdgeFigures(rounds: Rounds, side: 'baseline' | 'floor', pid: number | undefined, direct: Figures, gatewayCpu: number) {
  const figures = combine(rounds.results[side]);
  const cpu = perRequest(rounds.edgeCpu[side] ?? 0, figures.requests);
  return {
    ...figures,
    ratio: round3(figures.rps / direct.rps),
    // This run's gateway / that edge, per round (they ran back to back).
    [`gateway_over_${side}`]: roundRatios(rounds, 'gateway', side),
    cpu_ms_per_request: cpu,
    cpu_system_ms_per_request: perRequest(rounds.edgeSystem[side] ?? 0, figures.requests),
    gateway_cpu_over_this: round3(gatewayCpu / cpu),
    rss_mb: { max: Math.max(...(rounds.rss[side] ?? [])), end: pid ? rssMb(pid) : null, ...(pid ? rssSplit(pid) : {}) },
  };
}

/** The run's one JSON line. */
async function resultLine(documents: number, edges: Edges, rounds: Rounds, apiKey: string, publishable: boolean) {
  const gatewayMemory = await memoryBreakdown(edges.metricsPort);
  const direct = combine(rounds.results.direct);
  const viaGateway = combine(rounds.results.gateway);
  const me = await createFragranceClient({ baseUrl: `${edges.gateway.url}/v1`, apiKey }).me();
  const ratio = round3(viaGateway.rps / direct.rps);
  const gatewayCpu = perRequest(rounds.edgeCpu.gateway ?? 0, viaGateway.requests);
  const rssMax = Math.max(...(rounds.rss.gateway ?? []));
  const metricsOnOff = edges.gatewayOff ? metricsOnOffFigures(rounds, viaGateway, gatewayCpu) : null;
  const gatewayPid = edges.gateway.pid;
  const { load, edgeSystem, catalogueCpu, driverCpu } = rounds;
  return {
    bench: 'gateway',
    concurrency: config.BENCH_CONCURRENCY,
    duration_s: config.BENCH_DURATION_S,
    log_level: config.BENCH_LOG_LEVEL,
    search: config.BENCH_SEARCH,
    catalogue_response_cache: config.BENCH_CATALOGUE_CACHE,
    gateway_node_options: config.BENCH_GATEWAY_NODE_OPTIONS,
    documents,
    load_average: { mean: round3(load.reduce((a, b) => a + b, 0) / Math.max(1, load.length)), max: round3(Math.max(...load)) },
    direct,
    gateway: viaGateway,
    ratio,
    // Each round's gateway / direct: one burst of the machine's other load moves one round, not the median.
    ratio_rounds: roundRatios(rounds, 'gateway', 'direct'),
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
      // Of which in the kernel (system time): the loopback TCP of its three hops.
      gateway_system: perRequest(edgeSystem.gateway ?? 0, viaGateway.requests),
      catalogue_direct: perRequest(catalogueCpu.direct ?? 0, direct.requests),
      catalogue_via_gateway: perRequest(catalogueCpu.gateway ?? 0, viaGateway.requests),
    },
    gateway_rss_mb: { max: rssMax, end: gatewayPid ? rssMb(gatewayPid) : null, ...(gatewayPid ? rssSplit(gatewayPid) : {}) },
    // Where the gateway's memory is right after the load (its own runtime metrics).
    gateway_memory_mb: gatewayMemory,
    metrics_on_off: metricsOnOff,
    baseline: edges.baseline
      ? {
          src: config.BENCH_BASELINE_SRC,
          node_options: config.BENCH_BASELINE_NODE_OPTIONS,
          ...otherEdgeFigures(rounds, 'baseline', edges.baseline.pid, direct, gatewayCpu),
        }
      : null,
    // BENCH_FLOOR=1: the least a Node.js edge does per request (floor-edge.ts), same rounds, same load.
    floor: edges.floor ? otherEdgeFigures(rounds, 'floor', edges.floor.pid, direct, gatewayCpu) : null,
    // BENCH_KEYS=publishable: a publishable-key request against a secret-key one, same gateway, same rounds.
    keys: publishable ? keyKindFigures(rounds, viaGateway, gatewayCpu) : null,
    // The load generator's own CPU per measured request (segment warm-ups included, so slightly high):
    // what BENCH_DRIVER=client costs over raw.
    driver: DRIVER,
    driver_cpu_ms_per_request: perRequest((driverCpu.user + driverCpu.system) / 1e6, rounds.driverRequests),
    // Every admitted request was counted once: warm-ups plus the measured ones (every gateway shares the key).
    metered_requests: me.used_today,
  };
}

async function main(): Promise<void> {
  ensureElasticsearch(config.ELASTICSEARCH_URL);
  const documents = await prepareCatalogue();
  const redis = await startBenchRedis('gateway');
  try {
    const edges = await startCatalogueAndGateway(redis.url);
    await startOtherEdges(edges, redis.url);
    try {
      for (const edge of [edges.catalogue, edges.gateway, edges.gatewayOff, edges.baseline, edges.floor])
        if (edge) await waitForHealthy(edge.url, 60_000);
      const apiKey = createBenchKey(redis.url);
      const publishableKey = config.BENCH_KEYS ? createPublishableBenchKey(redis.url) : undefined;
      const sample = await sampleCatalogue(edges.catalogue.url);
      say(
        `${documents} documents; sampled ${sample.ids.length} ids and ${sample.brands.length} brands; concurrency ${config.BENCH_CONCURRENCY}, ${config.BENCH_DURATION_S} s each; ${config.BENCH_SEARCH} searches, catalogue response cache ${config.BENCH_CATALOGUE_CACHE ? 'on' : 'off'}`,
      );
      const items = requestMix(sample);
      const mix = DRIVER === 'raw' ? (random: () => number) => asRaw(items(random)) : (random: () => number) => asCall(items(random));
      const driving: Driving = { mix, apiKey, publishableKey };
      const sides = sidesOf(edges, apiKey, publishableKey);
      await warmUp(sides, edges.gateway.url, driving);
      // From here the driver's CPU counts, against the measured requests (segment warm-ups included).
      const rounds = await runRounds(sides, edges.catalogue.pid!, driving);
      process.stdout.write(`${JSON.stringify(await resultLine(documents, edges, rounds, apiKey, publishableKey !== undefined))}\n`);
    } finally {
      await stopBaseline();
    }
  } finally {
    await stopChildren();
    stopBenchRedis(redis);
  }
}

await runBench('gateway', main, () => Promise.all([stopBaseline(), stopChildren()]));
