// `npm run bench:suggest`: as-you-type suggestion latency at concurrency 1 (one user typing),
// (a) Elasticsearch directly with the very request body the service builds, (b) the catalogue
// service, (c) the gateway with an API key, in interleaved rounds. The mix replays typing: for
// sampled fragrances, brands, perfumers and notes, every prefix from 2 letters, some with a typo,
// some without accents or in capitals. Prints p50/p99 of each, and the CPU time each process
// (Elasticsearch, catalogue, gateway, this client) spent per request of each target: unlike
// latency on a shared machine, that does not grow with the load average. The last line is one
// JSON object. Target: (c) p50 ≤ 5 ms.
//
// Options (env): ELASTICSEARCH_URL (dev cluster, started if default), BENCH_ALIAS (fragrances;
// generated and ingested when it has fewer than 1,000 records or no suggestion index),
// BENCH_RECORDS (75000, for that ingest), BENCH_DURATION_S (10 per target), BENCH_ROUNDS (4),
// BENCH_LOG_LEVEL (warn).
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { Client } from '@elastic/elasticsearch';
import { foldKey, SuggestQuery } from '@fragrance/contracts';
import { generateCatalogue } from '@fragrance/dataset';
import { buildSuggestRequest, ingestCatalogue, suggestAliasOf } from '@fragrance/search';
import { freePort, waitForHealthy } from '@fragrance/testkit';
import { newLatencyHistogram, runLoad, type ClientCall, type LoadRequest } from './load.ts';
import { pick, seededRandom } from './random.ts';
import { benchConfig, SuggestBenchConfig } from './config.ts';
import {
  createBenchKey,
  cursorSecret,
  ensureElasticsearch,
  runBench,
  say as sayAs,
  startBenchRedis,
  startBenchService,
  stopBenchRedis,
  stopChildren,
  type BenchRedis,
} from './support.ts';

const config = benchConfig(SuggestBenchConfig);
const MIX_SIZE = 4_000;
const TARGET_P50_MS = 5;
const say = (m: string) => sayAs('suggest', m);
const ms = (x: number) => Math.round(x * 1000) / 1000;

/** CPU seconds (user + system) a process has used so far, from /proc (in clock ticks of 10 ms). */
function processCpu(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** CPU seconds the local Elasticsearch node has used so far (its own process statistics). */
async function elasticsearchCpu(): Promise<number> {
  const res = await fetch(`${config.ELASTICSEARCH_URL}/_nodes/_local/stats/process?filter_path=nodes.*.process.cpu.total_in_millis`);
  const body = (await res.json()) as { nodes: Record<string, { process: { cpu: { total_in_millis: number } } }> };
  return Object.values(body.nodes).reduce((sum, n) => sum + n.process.cpu.total_in_millis, 0) / 1000;
}

interface Pair {
  /** Through the typed client, to the catalogue (no key) or the gateway (with one). */
  service: ClientCall;
  elasticsearch: LoadRequest;
}

async function ready(client: Client): Promise<number> {
  try {
    const [{ count }] = await Promise.all([
      client.count({ index: config.BENCH_ALIAS }),
      client.count({ index: suggestAliasOf(config.BENCH_ALIAS) }),
    ]);
    return count;
  } catch {
    return 0;
  }
}

/** Names people type: fragrances (often with the brand first), brands, perfumers, notes. */
async function typedTexts(client: Client): Promise<string[]> {
  const res = await client.search<{ name: string; brand: string; perfumers: string[]; notes: { top: string[] } }>({
    index: config.BENCH_ALIAS,
    size: 1_000,
    query: { function_score: { query: { match_all: {} }, functions: [{ random_score: { seed: 14, field: '_seq_no' } }] } },
    _source: ['name', 'brand', 'perfumers', 'notes.top'],
  });
  const random = seededRandom(14);
  return res.hits.hits.map((h) => {
    const s = h._source!;
    const roll = random();
    if (roll < 0.5) return s.name;
    if (roll < 0.65) return `${s.brand} ${s.name}`;
    if (roll < 0.8) return s.brand;
    if (roll < 0.9) return s.perfumers[0] ?? s.brand;
    return s.notes.top[0] ?? s.name;
  });
}

/** Every prefix of a text from two characters, as a user types it; some with a typo, accents or capitals changed. */
function typing(texts: string[]): string[] {
  const random = seededRandom(2026);
  const out: string[] = [];
  while (out.length < MIX_SIZE) {
    let text = pick(random, texts);
    const style = random();
    if (style < 0.2) text = foldKey(text);
    else if (style < 0.3) text = text.toUpperCase();
    else if (style < 0.45 && text.length > 5) {
      const at = 2 + Math.floor(random() * (text.length - 3));
      text = text.slice(0, at) + text.slice(at + 1); // a dropped letter
    }
    for (let end = 2; end <= text.length && out.length < MIX_SIZE; end += 1) {
      const typed = text.slice(0, end);
      if (foldKey(typed) !== '') out.push(typed);
    }
  }
  return out;
}

function pairs(texts: string[]): Pair[] {
  return texts.map((q) => {
    const params = SuggestQuery.parse({ q });
    return {
      service: (client) => client.suggest({ q }),
      elasticsearch: {
        method: 'POST',
        path: `/${suggestAliasOf(config.BENCH_ALIAS)}/_search?filter_path=hits.hits._source`,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(buildSuggestRequest(params.q, params.types, 8)),
      },
    };
  });
}

interface Figures {
  p50_ms: number;
  p90_ms: number;
  p99_ms: number;
  requests: number;
  errors: number;
  /** CPU each process spent per measured request of this target (10 ms clock ticks summed over the run). */
  cpu_ms_per_request?: Record<string, number>;
}

interface Target {
  name: 'elasticsearch' | 'catalogue' | 'gateway';
  url: string;
  apiKey?: string;
  pick: (pair: Pair) => LoadRequest | ClientCall;
}

type Cpu = Record<'elasticsearch' | 'catalogue' | 'gateway' | 'client', number>;
type Mix = ReturnType<typeof pairs>;
/** What the rounds add up per target: latency, counts, CPU of every process. */
interface Tally {
  histogram: ReturnType<typeof newLatencyHistogram>;
  requests: number;
  errors: number;
  cpu: Cpu;
}

/** Loads the catalogue when the alias lacks one with a suggestion index; the documents and the typing mix. */
async function prepareMix(): Promise<{ documents: number; mix: Mix }> {
  const client = new Client({ node: config.ELASTICSEARCH_URL });
  if ((await ready(client)) < 1_000) {
    say(`no catalogue with a suggestion index behind ${config.BENCH_ALIAS}: generating and ingesting ${config.BENCH_RECORDS} records`);
    const result = await ingestCatalogue({
      client,
      alias: config.BENCH_ALIAS,
      records: generateCatalogue({ count: config.BENCH_RECORDS, seed: 1 }),
    });
    say(`ingested ${result.indexed} records in ${result.seconds} s (suggestion index included)`);
  }
  const documents = await ready(client);
  const mix = pairs(typing(await typedTexts(client)));
  await client.close();
  return { documents, mix };
}

/**
 * Warm-up outside the measured rounds (so the CPU counted belongs to measured requests only), then
 * interleaved rounds at concurrency 1, each target in turn, the order rotating.
 */
async function measure(targets: Target[], mix: Mix, pids: { catalogue: number; gateway: number }): Promise<Map<Target['name'], Tally>> {
  const cpuNow = async (): Promise<Cpu> => ({
    elasticsearch: await elasticsearchCpu(),
    catalogue: processCpu(pids.catalogue),
    gateway: processCpu(pids.gateway),
    client: process.cpuUsage().user / 1e6 + process.cpuUsage().system / 1e6,
  });
  const tallies = new Map(
    targets.map((t) => [
      t.name,
      { histogram: newLatencyHistogram(), requests: 0, errors: 0, cpu: { elasticsearch: 0, catalogue: 0, gateway: 0, client: 0 } },
    ]),
  );
  for (const target of targets) {
    await runLoad({
      url: target.url,
      concurrency: 1,
      durationMs: 1_000,
      ...(target.apiKey ? { apiKey: target.apiKey } : {}),
      next: (_r, i) => target.pick(mix[(i * 7) % mix.length]!),
    });
  }
  for (let round = 0; round < config.BENCH_ROUNDS; round += 1) {
    for (let k = 0; k < targets.length; k += 1) {
      const target = targets[(round + k) % targets.length]!;
      const tally = tallies.get(target.name)!;
      const before = await cpuNow();
      const res = await runLoad({
        url: target.url,
        concurrency: 1,
        durationMs: (config.BENCH_DURATION_S * 1_000) / config.BENCH_ROUNDS,
        ...(target.apiKey ? { apiKey: target.apiKey } : {}),
        histogram: tally.histogram,
        next: (_r, i) => target.pick(mix[(i + round * 997) % mix.length]!),
      });
      const after = await cpuNow();
      for (const key of Object.keys(tally.cpu) as (keyof Cpu)[]) tally.cpu[key] += after[key] - before[key];
      tally.requests += res.requests;
      tally.errors += res.errors;
    }
  }
  return tallies;
}

/** A target's latency percentiles, counts and CPU per request of each process it involves. */
function figuresOf(name: Target['name'], { histogram, requests, errors, cpu }: Tally): Figures {
  const figures: Figures = {
    p50_ms: ms(histogram.getValueAtPercentile(50) / 1000),
    p90_ms: ms(histogram.getValueAtPercentile(90) / 1000),
    p99_ms: ms(histogram.getValueAtPercentile(99) / 1000),
    requests,
    errors,
  };
  const perRequest = (seconds: number) => ms((seconds * 1000) / Math.max(1, requests));
  figures.cpu_ms_per_request = {
    elasticsearch: perRequest(cpu.elasticsearch),
    ...(name === 'elasticsearch' ? {} : { catalogue: perRequest(cpu.catalogue) }),
    ...(name === 'gateway' ? { gateway: perRequest(cpu.gateway) } : {}),
    client: perRequest(cpu.client),
  };
  say(
    `  ${name}: p50 ${figures.p50_ms} ms, p90 ${figures.p90_ms} ms, p99 ${figures.p99_ms} ms, ${requests} requests, ${errors} errors; CPU ms per request ${Object.entries(
      figures.cpu_ms_per_request,
    )
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  );
  return figures;
}

async function main(): Promise<void> {
  ensureElasticsearch(config.ELASTICSEARCH_URL);
  const { documents, mix } = await prepareMix();
  const catalogueUrl = `http://127.0.0.1:${await freePort()}`;
  const catalogue = startBenchService(
    'catalogue',
    {
      PORT: new URL(catalogueUrl).port,
      ELASTICSEARCH_URL: config.ELASTICSEARCH_URL,
      LOG_LEVEL: config.BENCH_LOG_LEVEL,
      CATALOGUE_ALIAS: config.BENCH_ALIAS,
      CURSOR_SECRET: cursorSecret(),
    },
    'suggest',
  );
  let redis: BenchRedis | undefined;
  try {
    await waitForHealthy(catalogueUrl, 60_000);
    redis = await startBenchRedis('suggest');
    const redisUrl = redis.url;
    const gatewayUrl = `http://127.0.0.1:${await freePort()}`;
    const gateway = startBenchService(
      'gateway',
      { PORT: new URL(gatewayUrl).port, REDIS_URL: redisUrl, CATALOGUE_SERVICE_URL: catalogueUrl, LOG_LEVEL: config.BENCH_LOG_LEVEL },
      'suggest',
    );
    await waitForHealthy(gatewayUrl, 60_000);
    const apiKey = createBenchKey(redisUrl);
    const targets: Target[] = [
      { name: 'elasticsearch', url: config.ELASTICSEARCH_URL, pick: (p) => p.elasticsearch },
      { name: 'catalogue', url: catalogueUrl, pick: (p) => p.service },
      { name: 'gateway', url: gatewayUrl, apiKey, pick: (p) => p.service },
    ];
    say(
      `${documents} fragrances; ${mix.length} typed prefixes; concurrency 1, ${config.BENCH_DURATION_S} s per target in ${config.BENCH_ROUNDS} interleaved rounds`,
    );
    const tallies = await measure(targets, mix, { catalogue: catalogue.pid!, gateway: gateway.pid! });
    const summary = {} as Record<Target['name'], Figures>;
    for (const t of targets) summary[t.name] = figuresOf(t.name, tallies.get(t.name)!);
    const result = {
      bench: 'suggest',
      // The machine's 1/5/15-minute load average at the end: on a shared machine latencies are only comparable at like load.
      load_average: loadavg().map((x) => Math.round(x * 100) / 100),
      documents,
      concurrency: 1,
      duration_s: config.BENCH_DURATION_S,
      rounds: config.BENCH_ROUNDS,
      log_level: config.BENCH_LOG_LEVEL,
      ...summary,
      target_gateway_p50_ms: TARGET_P50_MS,
      meets_target: summary.gateway.p50_ms <= TARGET_P50_MS && summary.gateway.errors === 0,
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await stopChildren();
    if (redis) stopBenchRedis(redis);
  }
}

await runBench('suggest', main);
