// `npm run bench:chaos`: steady mixed load through the cluster's edge while, in turn, one
// instance of each service is SIGKILLed, every service is rolled, the Elasticsearch master is
// SIGKILLed, every Elasticsearch node is stopped (SIGSTOP) for 30 s under a Zipf workload, the
// Redis primary is SIGKILLed (Sentinel fails over) and a worker is SIGKILLed during an
// enrichment run. Then it checks nothing was lost: each key's used_today equals the
// requests admitted for it, the OAuth grant, user and keys still work, the enrichment run
// completed with every batch once. Prints per fault: sent, failed (5xx, reset, timeout), the
// longest error window; a JSON line last.
//
// Uses a running `npm run cluster`, else starts one (and stops it at the end).
// Targets: instance kills and rolling restarts → 0 failed; Elasticsearch master loss → 0 failed
// searches after a ≤ 5 s window; every Elasticsearch node stopped → ≥ 80 % of the Zipf workload
// answered from cache, none wrong, searches answer again after; Redis primary loss → 0 failed
// data-API requests and MCP tool calls, every key exact, over-admission within the bound.
//
// Options (env): BENCH_CHAOS_SETTLE_S (8: load after each fault before the next), BENCH_CONCURRENCY (8),
// BENCH_REQUEST_TIMEOUT_MS (60000: the edge answers first), BENCH_CHAOS_FAULTS (instances,rolling,es,es-outage,redis,worker by default; e.g.
// `es-outage,redis` runs only those).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes, createHash } from 'node:crypto';
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { createFragranceClient } from '@fragrance/client';
import { FormUser } from '@fragrance/testkit';
import { haproxyCommand, sendControl } from '@fragrance/stack';
import { pick, seededRandom } from './random.ts';
import { CLUSTER_PORTS } from '@fragrance/config';
import { benchConfig, ChaosBenchConfig, inheritedEnv } from './config.ts';
import { localDir, ROOT, say as sayAs } from './support.ts';
import {
  answersBefore,
  dataIdsHash,
  esOutageTargetMet,
  failuresByInterface,
  outageFigures,
  overAdmission,
  redisTargetMet,
  zipfPlan,
  zipfTargets,
  type OutageFigures,
  type OverAdmission,
  type ZipfSample,
} from './chaos-figures.ts';

const config = benchConfig(ChaosBenchConfig);
const LOCAL = localDir();
const CONTROL = `${LOCAL}/cluster/control.sock`;
const HAPROXY_SOCKET = `${LOCAL}/cluster/haproxy.sock`;
const EDGE = `http://127.0.0.1:${CLUSTER_PORTS.edge}`;
const ES = `http://127.0.0.1:${CLUSTER_PORTS.internal.elasticsearch}`;
const SERVICES = ['gateway', 'catalogue', 'auth', 'mcp', 'worker'] as const;
const say = (message: string) => sayAs('chaos', message);

interface ClusterStatus {
  instances: { name: string; service: string; port: number; pid: number | null }[];
  elasticsearch: { master: string | null; nodes: { node: string; port: number; pid: number | null }[] };
  redis: { primary: string | null; nodes: { name: string; port: number; pid: number | null }[]; sentinels: number[]; sentinelName: string };
}

/** The cluster's state; asked again on a transient socket error (a busy cluster process, HAProxy's stats socket). */
async function status(): Promise<ClusterStatus> {
  for (let attempt = 1; ; attempt++) {
    try {
      return (await sendControl(CONTROL, { command: 'status' })) as ClusterStatus;
    } catch (error) {
      if (attempt >= 3) throw error;
      await sleep(500);
    }
  }
}

// ---- the cluster: reuse or start ----
let startedCluster: ChildProcess | undefined;
async function ensureCluster(): Promise<void> {
  if (
    await status().then(
      () => true,
      () => false,
    )
  ) {
    say('using the running cluster');
    return;
  }
  say('starting the cluster (npm run cluster); this takes a few minutes');
  const child = spawn(process.execPath, ['scripts/cluster/cluster.ts'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  startedCluster = child;
  await new Promise<void>((resolve, reject) => {
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      if (buffered.includes('[cluster]\x1b[0m ready:')) resolve();
      if (buffered.length > 100_000) buffered = buffered.slice(-10_000);
    });
    child.once('exit', (code) => reject(new Error(`the cluster exited (${code}) before it was ready`)));
  });
}

function opsEnv(primary: string | null, s: ClusterStatus): NodeJS.ProcessEnv {
  return {
    ...inheritedEnv(),
    REDIS_URL: `redis://${primary ?? `127.0.0.1:${CLUSTER_PORTS.redisPrimary}`}`,
    REDIS_SENTINELS: s.redis.sentinels.map((p) => `127.0.0.1:${p}`).join(','),
    REDIS_SENTINEL_NAME: s.redis.sentinelName,
    ELASTICSEARCH_URL: ES,
  };
}

function ops(env: NodeJS.ProcessEnv, args: string[], input = ''): string {
  const result = spawnSync(process.execPath, ['packages/ops/src/cli.ts', ...args], { cwd: ROOT, env, encoding: 'utf8', input });
  if (result.status !== 0) throw new Error(`ops ${args.slice(0, 2).join(' ')} failed: ${result.stderr}`);
  return result.stdout;
}

// ---- load ----
type Kind = 'search' | 'detail' | 'me' | 'mcp' | 'refresh';
interface Sample {
  phase: string;
  kind: Kind;
  start: number;
  end: number;
  /** 5xx, reset or timeout. */
  failed: boolean;
  status: number;
  key: number;
  /** Charged to `key` for sure (2xx/4xx data read but 429), or maybe (no answer). */
  charged: 'yes' | 'no' | 'unknown';
  /** A failure's answer, shortened: who answered it (HAProxy's page, a service's problem code) or the error. */
  detail?: string;
}

const samples: Sample[] = [];
let phase = 'warm-up';
let running = true;

// The Elasticsearch-outage fault: its Zipf workload (its own loops and samples).
const OUTAGE_MS = 30_000;
/**
 * Warm-up by requests, not time: how much of the workload the caches hold when Elasticsearch stops
 * depends only on how many requests warmed them (1,500 Zipf draws over 365 targets: ≈ 93 % of its
 * mass). At 20 s of warming, a run at load 26 had sent 150 (≈ 65 %) and one at load 15 about 2,000.
 */
const ZIPF_WARM_REQUESTS = 1_500;
const ZIPF_WARM_MAX_MS = 300_000;
const ZIPF_WORKERS = 4;
const ZIPF_AFTER_MS = 10_000;
const zipfSamples: ZipfSample[] = [];
let zipfRunning = false;
/** Elasticsearch pids stopped with SIGSTOP and not yet continued (the run's teardown continues them). */
const frozen = new Set<number>();

async function timed(kind: Kind, key: number, send: () => Promise<Response>, chargeable: boolean): Promise<Sample> {
  const start = Date.now();
  const current = phase;
  try {
    const res = await send();
    const body = await res.text();
    const charged = chargeable && res.status !== 429 && res.status !== 401 && res.status < 500 ? 'yes' : 'no';
    const sample: Sample = { phase: current, kind, start, end: Date.now(), failed: res.status >= 500, status: res.status, key, charged };
    if (res.status >= 500) sample.detail = failureDetail(res, body);
    return sample;
  } catch (error) {
    const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return { phase: current, kind, start, end: Date.now(), failed: true, status: 0, key, charged: chargeable ? 'unknown' : 'no', detail };
  }
}

/** Which tier answered a 5xx: HAProxy's own page (no server), or a service's problem+json code. */
function failureDetail(res: Response, body: string): string {
  const type = res.headers.get('content-type') ?? '';
  if (type.includes('json')) {
    try {
      const problem = JSON.parse(body) as { code?: unknown; detail?: unknown; error?: unknown };
      return `json ${JSON.stringify(problem.code ?? problem.error ?? '')} ${JSON.stringify(problem.detail ?? '').slice(0, 100)}`;
    } catch {
      // not JSON after all
    }
  }
  return `${type || 'no type'} ${body.replace(/\s+/g, ' ').slice(0, 100)}`;
}

interface Grant {
  clientId: string;
  access: string;
  refresh: string;
}

const WORDS = ['rose', 'vanilla', 'oud', 'bergamot', 'sandalwood', 'fig', 'neroli', 'patchouli', 'iris', 'amber'];

async function loadLoop(seed: number, keys: string[], ids: string[], grant: Grant): Promise<void> {
  const random = seededRandom(seed);
  let call = 0;
  while (running) {
    const roll = random();
    const key = call++ % keys.length;
    const auth = { authorization: `Bearer ${keys[key] ?? ''}` };
    const signal = AbortSignal.timeout(config.BENCH_REQUEST_TIMEOUT_MS);
    let sample: Sample;
    if (roll < 0.4) {
      const url = `${EDGE}/v1/fragrances?query=${pick(random, WORDS)}&limit=20`;
      sample = await timed('search', key, () => fetch(url, { headers: auth, signal }), true);
    } else if (roll < 0.65) {
      const url = `${EDGE}/v1/fragrances/${pick(random, ids)}`;
      sample = await timed('detail', key, () => fetch(url, { headers: auth, signal }), true);
    } else if (roll < 0.8) {
      sample = await timed('me', key, () => fetch(`${EDGE}/v1/me`, { headers: auth, signal }), false);
    } else {
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: call,
        method: 'tools/call',
        params: { name: 'search_fragrances', arguments: { query: pick(random, WORDS), limit: 5 } },
      });
      sample = await timed(
        'mcp',
        -1,
        () =>
          fetch(`${EDGE}/mcp`, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${grant.access}`,
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              'mcp-protocol-version': '2025-06-18',
            },
            body,
            signal,
          }),
        false,
      );
      if (sample.status === 401) sample.failed = true; // a token that stopped working is a lost grant
    }
    samples.push(sample);
  }
}

/** Grants lost (a refresh refused with 400: the refresh token was revoked or seen as reused), by phase. */
const grantsLost: { phase: string; at: number; answer: string }[] = [];

/**
 * One refresh at a time (each rotates the refresh token), every ~2 s. A refused refresh means the
 * grant is gone (counted as lost OAuth state); a new sign-in replaces it so the faults after it
 * are measured on their own instead of as 401s of a dead grant.
 */
async function refreshLoop(grant: Grant, signIn: () => Promise<Grant>): Promise<void> {
  while (running) {
    await sleep(2_000);
    let next: { access_token?: string; refresh_token?: string } = {};
    let lastAnswer = '';
    const sample = await timed(
      'refresh',
      -1,
      async () => {
        const res = await fetch(`${EDGE}/oauth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: grant.refresh, client_id: grant.clientId }).toString(),
          signal: AbortSignal.timeout(config.BENCH_REQUEST_TIMEOUT_MS),
        });
        if (res.status === 200) next = (await res.clone().json()) as typeof next;
        else lastAnswer = `${res.status} ${(await res.clone().text()).slice(0, 160)}`;
        return res;
      },
      false,
    );
    if (sample.status !== 200) sample.failed = true;
    if (next.access_token && next.refresh_token) {
      grant.access = next.access_token;
      grant.refresh = next.refresh_token;
    }
    samples.push(sample);
    if (sample.status === 400 && running) {
      grantsLost.push({ phase: sample.phase, at: sample.end, answer: lastAnswer });
      say(`  the OAuth grant was refused in phase "${sample.phase}" (${lastAnswer}); signing in again`);
      const fresh = await signIn().catch((error: unknown) => {
        say(`  signing in again failed: ${String(error)}`);
        return undefined;
      });
      if (fresh) Object.assign(grant, fresh);
    }
  }
}

// ---- figures ----
interface PhaseFigures {
  fault: string;
  sent: number;
  failed: number;
  failed_by_kind: Partial<Record<Kind, number>>;
  /** Failures by kind and answer, e.g. `mcp 502`; `0` is a reset or a timeout (no answer). */
  failed_by_status: Record<string, number>;
  /** Each distinct failure (kind, status, who answered) with its count and first time after the fault (ms). */
  failure_details?: { what: string; count: number; first_after_ms: number }[];
  longest_error_window_ms: number;
  /** From the fault's start to the end of its last failed request (0: nothing failed). */
  last_failure_after_ms: number;
  /** 1-minute load average of the machine when the phase ended (shared machine: read every figure with it). */
  load_average: number;
  searches_failed_after_window?: number;
  /**
   * Requests HAProxy retried in the phase, per backend (`show stat` wretr + wredis of the backend):
   * at `gateway` these are client requests the edge sent to a second gateway after the first
   * failed or closed before answering (it may have admitted them already).
   */
  haproxy_retries: Record<string, number>;
  /** Redis fault only: whether Sentinel promoted the replica (the fault is meant to exercise that). */
  failed_over?: boolean;
  /** Redis fault only: a fresh key's used_today equals the requests answered for it, after the window. */
  quota_exact_after_window?: { sent: number; answered: number; used_today: number; exact: boolean };
  /** Redis fault only: failed data-API requests (searches, details, /v1/me) and failed MCP tool calls. */
  failed_data_api?: number;
  failed_mcp?: number;
  /** Redis fault only: a key 2 short of its quota when the primary died, sending through the outage. */
  over_admission?: OverAdmission;
  /** Elasticsearch outage only: the Zipf workload while every node was stopped. */
  es_outage?: OutageFigures & {
    outage_ms: number;
    targets: number;
    warmed_targets: number;
    /** Zipf requests sent before Elasticsearch stopped. */
    warm_requests: number;
    searches_answer_again_after_ms: number | null;
  };
  /** Whether the issue's target for this fault was met (absent for the baseline). */
  target_met?: boolean;
  step_error?: string;
}

/** Failures closer than 1 s to each other form one window, from the first failure's start to the last one's end. */
function longestWindow(failures: Sample[]): number {
  const sorted = [...failures].sort((a, b) => a.start - b.start);
  let longest = 0;
  let windowStart = 0;
  let windowEnd = -Infinity;
  for (const f of sorted) {
    if (f.start > windowEnd + 1_000) windowStart = f.start;
    windowEnd = Math.max(windowEnd, f.end);
    longest = Math.max(longest, windowEnd - windowStart);
  }
  return longest;
}

/** HAProxy's retry counters per backend (retries + redispatches), from its stats socket. */
async function haproxyRetries(): Promise<Record<string, number>> {
  const csv = await haproxyCommand(HAPROXY_SOCKET, 'show stat').catch(() => '');
  const [header, ...rows] = csv.split('\n');
  const columns = (header ?? '').replace(/^# /, '').split(',');
  const at = (name: string) => columns.indexOf(name);
  const out: Record<string, number> = {};
  for (const row of rows) {
    const cells = row.split(',');
    if (cells[at('svname')] !== 'BACKEND') continue;
    out[cells[at('pxname')] ?? '?'] = Number(cells[at('wretr')] ?? 0) + Number(cells[at('wredis')] ?? 0);
  }
  return out;
}

const retriesSince = (before: Record<string, number>, after: Record<string, number>) =>
  Object.fromEntries(Object.entries(after).map(([backend, n]) => [backend, n - (before[backend] ?? 0)]));

function figures(fault: string, startedAt: number, retries: Record<string, number>): PhaseFigures {
  const inPhase = samples.filter((s) => s.phase === fault);
  const failures = inPhase.filter((s) => s.failed);
  const byKind: Partial<Record<Kind, number>> = {};
  const byStatus: Record<string, number> = {};
  for (const f of failures) {
    byKind[f.kind] = (byKind[f.kind] ?? 0) + 1;
    byStatus[`${f.kind} ${f.status}`] = (byStatus[`${f.kind} ${f.status}`] ?? 0) + 1;
  }
  const details = new Map<string, { what: string; count: number; first_after_ms: number }>();
  for (const f of failures) {
    const what = `${f.kind} ${f.status} ${f.detail ?? ''}`.trim();
    const seen = details.get(what);
    if (seen) seen.count++;
    else details.set(what, { what, count: 1, first_after_ms: f.start - startedAt });
  }
  return {
    fault,
    sent: inPhase.length,
    ...(details.size ? { failure_details: [...details.values()] } : {}),
    failed: failures.length,
    failed_by_kind: byKind,
    failed_by_status: byStatus,
    longest_error_window_ms: longestWindow(failures),
    haproxy_retries: retries,
    last_failure_after_ms: failures.length ? Math.max(...failures.map((f) => f.end)) - startedAt : 0,
    load_average: Math.round((loadavg()[0] ?? 0) * 10) / 10,
  };
}

function kill(pid: number | null | undefined, what: string): void {
  if (!pid) throw new Error(`no pid for ${what}`);
  say(`SIGKILL ${what} (pid ${pid})`);
  process.kill(pid, 'SIGKILL');
}

async function until(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(500);
  }
}

/** A gauge's value in a Prometheus text exposition (undefined when absent). */
const gaugeOf = (text: string, name: string): number | undefined => {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
};

/**
 * Every gateway admits through Redis again and has replayed its journal (its /metrics): before
 * that, `used_today` still lacks what the gateways admitted locally during the outage, and
 * reading it would count a replay in flight as lost.
 */
async function journalsReplayed(): Promise<boolean> {
  const gateways = (await status()).instances.filter((i) => i.service === 'gateway');
  const caughtUp = await Promise.all(
    gateways.map(async (gateway) => {
      const text = await (
        await fetch(`http://127.0.0.1:${gateway.port + CLUSTER_PORTS.instanceMetricsOffset}/metrics`, {
          signal: AbortSignal.timeout(5_000),
        })
      ).text();
      return gaugeOf(text, 'gateway_admission_degraded') === 0 && gaugeOf(text, 'gateway_admission_journal_backlog') === 0;
    }),
  );
  return caughtUp.every(Boolean);
}

// ---- the run ----
await ensureCluster();
try {
  let s = await status();
  const env = opsEnv(s.redis.primary, s);

  // Keys whose quota and bucket never bind: used_today must equal what was admitted, exactly.
  const keys = Array.from({ length: 4 }, (_, i) => createKey(env, `chaos-${i}`, 1_000_000_000, 1_000_000));
  // The Elasticsearch-outage fault's Zipf workload sends with its own key (checked like the others).
  const zipfKey = createKey(env, 'chaos-zipf', 1_000_000_000, 1_000_000);
  const zipfUsedBefore = await usedToday(zipfKey);
  const usedBefore = await Promise.all(keys.map((k) => usedToday(k)));

  // Real documents to read (straight from Elasticsearch, so the sampling is not charged).
  const hits = (await (await fetch(`${ES}/fragrances/_search?size=600&_source=false`)).json()) as { hits: { hits: { _id: string }[] } };
  const ids = hits.hits.hits.slice(0, 300).map((h) => h._id);
  // The Zipf workload reads other records than the steady load, so every answer it gets during the
  // Elasticsearch outage comes from a cache entry it warmed itself and can be checked against it.
  const zipfIds = hits.hits.hits.length > 300 ? hits.hits.hits.slice(300).map((h) => h._id) : ids;

  // A real OAuth grant for MCP: a user, a registered public client, sign-in + consent, PKCE.
  const email = `chaos-${randomBytes(4).toString('hex')}@bench.example`;
  const password = randomBytes(12).toString('base64url');
  ops(env, ['users', 'create', '--email', email], `${password}\n`);
  // Set-up is not measured: on a busy machine a sign-in (scrypt) can outlast a timeout, so try again.
  let grant: Grant | undefined;
  for (let attempt = 1; !grant; attempt++) {
    grant = await oauthGrant(email, password).catch((error: unknown) => {
      if (attempt >= 3) throw error;
      say(`OAuth set-up attempt ${attempt} failed (${String(error)}); retrying`);
      return undefined;
    });
  }
  say('keys, user and OAuth grant ready; load starts');

  const loops = [
    ...Array.from({ length: config.BENCH_CONCURRENCY }, (_, i) => loadLoop(i + 1, keys, ids, grant)),
    refreshLoop(grant, () => oauthGrant(email, password)),
  ];
  const results: PhaseFigures[] = [];
  /** Extra figures a fault step reports about itself (merged into its phase's figures). */
  let stepFigures: Partial<PhaseFigures> = {};
  const phaseRun = async (name: string, action: () => Promise<void>) => {
    phase = name;
    stepFigures = {};
    const retriesBefore = await haproxyRetries();
    const startedAt = Date.now();
    say(`fault: ${name}`);
    // A fault step that fails (e.g. an instance too slow to come back) is reported, and the run goes on.
    const error = await action().then(
      () => undefined,
      (e: unknown) => (e instanceof Error ? e.message : String(e)),
    );
    if (error) say(`  ${name}: the fault step failed: ${error}`);
    await sleep(config.BENCH_CHAOS_SETTLE_S * 1_000);
    const f = {
      ...figures(name, startedAt, retriesSince(retriesBefore, await haproxyRetries())),
      ...stepFigures,
      ...(error ? { step_error: error } : {}),
    };
    results.push(f);
    for (const d of f.failure_details ?? []) say(`  failed ×${d.count} (first ${d.first_after_ms} ms after the fault): ${d.what}`);
    say(
      `  ${name}: ${f.sent} sent, ${f.failed} failed ${JSON.stringify(f.failed_by_status)}, longest error window ${f.longest_error_window_ms} ms, last failure ${f.last_failure_after_ms} ms after the fault (load average ${f.load_average}); HAProxy retries ${JSON.stringify(f.haproxy_retries)}`,
    );
  };

  await sleep(3_000);
  await phaseRun('baseline', () => sleep(2_000));
  if (config.BENCH_CHAOS_FAULTS.has('instances'))
    await phaseRun('instance kills', async () => {
      for (const service of SERVICES) {
        s = await status();
        kill(s.instances.find((i) => i.service === service)?.pid, `${service}-1`);
        await sleep(3_000);
      }
    });
  if (config.BENCH_CHAOS_FAULTS.has('rolling'))
    await phaseRun('rolling restarts', async () => {
      for (const service of SERVICES) {
        say(`rolling ${service}`);
        await sendControl(CONTROL, { command: 'restart', service });
      }
    });
  if (config.BENCH_CHAOS_FAULTS.has('es'))
    await phaseRun('elasticsearch master kill', async () => {
      s = await status();
      const master = s.elasticsearch.nodes.find((n) => n.node === s.elasticsearch.master);
      kill(master?.pid, `Elasticsearch master ${s.elasticsearch.master ?? '?'}`);
      await sleep(2_000);
      // A JVM starting on a machine at load 30 took over 3 minutes to rejoin.
      await until('the Elasticsearch node to come back and the catalogue to be green', 480_000, async () => {
        const now = await status();
        const back = now.elasticsearch.nodes.every((n) => n.pid !== null);
        const health = await fetch(`${ES}/_cluster/health/fragrances?wait_for_status=green&timeout=1s`);
        return back && health.status === 200;
      });
    });
  const esFigures = results.find((r) => r.fault === 'elasticsearch master kill');
  if (esFigures) {
    // Searches failing after the first 5 s of the outage window miss the target.
    const searchFailures = samples.filter((x) => x.phase === esFigures.fault && x.failed && x.kind === 'search');
    const first = Math.min(...searchFailures.map((x) => x.start));
    esFigures.searches_failed_after_window = searchFailures.filter((x) => x.start > first + 5_000).length;
  }
  if (config.BENCH_CHAOS_FAULTS.has('es-outage'))
    await phaseRun('elasticsearch outage', async () => {
      stepFigures.es_outage = await esOutage(zipfKey, zipfIds);
    });
  if (config.BENCH_CHAOS_FAULTS.has('redis'))
    await phaseRun('redis primary kill', async () => {
      s = await status();
      const gateways = s.instances.filter((i) => i.service === 'gateway').length;
      // A key 2 short of its quota, seen by every gateway, keeps sending through the outage: what
      // it is admitted past its quota is the over-admission the local allowance bounds.
      const quotaKey = { quota: 20, burst: 3 };
      const limited = createKey(opsEnv(s.redis.primary, s), 'chaos-quota', quotaKey.quota, quotaKey.burst);
      let limitedAnswered = 0;
      const limitedRequest = async () => {
        const res = await fetch(`${EDGE}/v1/fragrances/${encodeURIComponent(ids[0] ?? '')}`, {
          headers: { authorization: `Bearer ${limited}` },
          signal: AbortSignal.timeout(config.BENCH_REQUEST_TIMEOUT_MS),
        }).catch(() => null);
        await res?.arrayBuffer().catch(() => null);
        if (res?.status === 200) limitedAnswered++;
      };
      for (let i = 0; i < quotaKey.quota - 2; i++) await limitedRequest();
      let limitedRunning = true;
      const limitedLoop = (async () => {
        while (limitedRunning) {
          await limitedRequest();
          await sleep(100);
        }
      })();
      const primary = s.redis.primary;
      const node = s.redis.nodes.find((n) => `127.0.0.1:${n.port}` === primary);
      kill(node?.pid, `Redis primary ${primary ?? '?'}`);
      // Sentinel promotes the replica after down-after-ms; the cluster's watchdog leaves a dead
      // primary to Sentinel (it restarts it, as a replica of the new primary, once Sentinel moved on).
      // (A pid file outlives its process: liveness is asked of the process itself.)
      const alive = (pid: number | null) => {
        try {
          return pid !== null && process.kill(pid, 0);
        } catch {
          return false;
        }
      };
      await until('Sentinel to promote the replica', 60_000, async () => {
        const now = await status();
        return now.redis.primary !== null && now.redis.primary !== primary;
      }).catch((error: unknown) => say(`  ${String(error)}`));
      await until('both Redis nodes running again', 120_000, async () => (await status()).redis.nodes.every((n) => alive(n.pid)));
      const after = (await status()).redis.primary;
      stepFigures.failed_over = after !== primary;
      limitedRunning = false;
      await limitedLoop;
      await until('every gateway to replay its journal', 60_000, journalsReplayed);
      stepFigures.over_admission = overAdmission({
        ...quotaKey,
        gateways,
        answered: limitedAnswered,
        used_today: await usedToday(limited),
      });
      say(`  over-admission: ${JSON.stringify(stepFigures.over_admission)}`);
      say(
        after === primary
          ? `  the killed node ${primary ?? '?'} came back before Sentinel failed over`
          : `  Sentinel promoted ${after ?? '?'}`,
      );
      // After the window, counting is exact again: a fresh key, requests one at a time, its
      // used_today equal to the requests answered.
      await sleep(config.BENCH_CHAOS_SETTLE_S * 1_000);
      s = await status();
      const probe = createKey(opsEnv(s.redis.primary, s), 'chaos-probe', 1_000_000, 1_000_000);
      let answered = 0;
      const sent = 200;
      for (let i = 0; i < sent; i++) {
        const res = await fetch(`${EDGE}/v1/fragrances?query=${pick(seededRandom(i), WORDS)}&limit=5`, {
          headers: { authorization: `Bearer ${probe}` },
          signal: AbortSignal.timeout(config.BENCH_REQUEST_TIMEOUT_MS),
        }).catch(() => null);
        await res?.arrayBuffer().catch(() => null);
        if (res && res.status < 300) answered++;
      }
      const used = await usedToday(probe);
      stepFigures.quota_exact_after_window = { sent, answered, used_today: used, exact: used === answered };
      say(`  after the window: ${answered} of ${sent} answered on a fresh key, used_today ${used}`);
    });

  let enrichment: Record<string, unknown> = {};
  if (config.BENCH_CHAOS_FAULTS.has('worker'))
    await phaseRun('worker kill during enrichment', async () => {
      s = await status();
      const runEnv = opsEnv(s.redis.primary, s);
      const run = spawn(process.execPath, ['packages/ops/src/cli.ts', 'enrich', 'run', '--timeout-minutes', '20'], {
        cwd: ROOT,
        env: runEnv,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      run.stdout.on('data', (c: Buffer) => (output += c.toString()));
      const finished = new Promise<number | null>((resolve) => run.once('exit', resolve));
      await until('the enrichment run to get going', 120_000, async () => {
        const current = (JSON.parse(ops(runEnv, ['enrich', 'status', '--json'])) as { current: { batches_done: number } | null }).current;
        return (current?.batches_done ?? 0) >= 2;
      });
      kill((await status()).instances.find((i) => i.service === 'worker')?.pid, 'worker-1 mid-run');
      const code = await finished;
      const last =
        (JSON.parse(ops(runEnv, ['enrich', 'status', '--json', '--runs', '1'])) as { last: Record<string, unknown>[] }).last[0] ?? {};
      enrichment = { exit: code, ...last };
      if (code !== 0) say(`enrich run exited ${code}: ${output.slice(-500)}`);
    });

  running = false;
  await Promise.all(loops);

  // The issue's targets, per fault.
  for (const f of results) {
    if (f.fault === 'instance kills' || f.fault === 'rolling restarts') f.target_met = f.failed === 0 && !f.step_error;
    if (f.fault === 'elasticsearch master kill')
      f.target_met = (f.searches_failed_after_window ?? 0) === 0 && f.longest_error_window_ms <= 5_000 && !f.step_error;
    if (f.fault === 'elasticsearch outage')
      f.target_met =
        f.es_outage !== undefined && esOutageTargetMet(f.es_outage, f.es_outage.searches_answer_again_after_ms !== null) && !f.step_error;
    if (f.fault === 'worker kill during enrichment') f.target_met = f.failed === 0 && !f.step_error;
  }

  // ---- nothing lost ----
  await until('every gateway to replay its journal', 60_000, journalsReplayed).catch((error: unknown) => say(`  ${String(error)}`));
  const usedAfter = await Promise.all(keys.map((k) => usedToday(k)));
  const quotas = keys.map((_, i) => {
    const mine = samples.filter((x) => x.key === i);
    const admitted = mine.filter((x) => x.charged === 'yes').length;
    const unknown = mine.filter((x) => x.charged === 'unknown').length;
    const used = (usedAfter[i] ?? 0) - (usedBefore[i] ?? 0);
    // While Redis fails over, a request admitted just before the crash can fail and its refund
    // (5xx are given back) find no Redis: at most those are charged without an answer.
    const failedInFailover = mine.filter((x) => x.phase === 'redis primary kill' && x.failed).length;
    return {
      key: i,
      admitted,
      unanswered: unknown,
      used_today_delta: used,
      exact: used === admitted,
      within_failover_bound: used >= admitted && used <= admitted + unknown + failedInFailover,
    };
  });
  const zipfCharged = zipfSamples.filter((x) => x.status > 0 && x.status < 500 && x.status !== 429 && x.status !== 401).length;
  const zipfUsed = (await usedToday(zipfKey)) - zipfUsedBefore;
  quotas.push({
    key: keys.length,
    admitted: zipfCharged,
    unanswered: zipfSamples.filter((x) => x.status === 0).length,
    used_today_delta: zipfUsed,
    exact: zipfUsed === zipfCharged,
    within_failover_bound: zipfUsed >= zipfCharged && zipfUsed <= zipfCharged + zipfSamples.filter((x) => x.status === 0).length,
  });
  for (const f of results) {
    if (f.fault !== 'redis primary kill') continue;
    const split = failuresByInterface(samples.filter((x) => x.phase === f.fault));
    f.failed_data_api = split.data_api;
    f.failed_mcp = split.mcp;
    f.target_met = redisTargetMet({
      failed_data_api: split.data_api,
      failed_mcp: split.mcp,
      failed_over: f.failed_over,
      // The keys loaded through the Redis fault (the Zipf key only sends during the Elasticsearch one).
      keys_exact: quotas.slice(0, keys.length).every((q) => q.exact) && f.quota_exact_after_window?.exact === true,
      over_admission: f.over_admission,
      step_error: f.step_error,
    });
  }
  const finalRefresh = await fetch(`${EDGE}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: grant.refresh, client_id: grant.clientId }).toString(),
  });
  s = await status();
  const users = JSON.parse(ops(opsEnv(s.redis.primary, s), ['users', 'list', '--json'])) as { email: string }[];
  // A key that is gone makes me() throw (401 unauthorized): alive means every one answers.
  const keysAlive = await Promise.all(keys.map((apiKey) => createFragranceClient({ baseUrl: `${EDGE}/v1`, apiKey }).me())).then(
    () => true,
    () => false,
  );
  const lost = {
    quotas_exact: quotas.every((q) => q.exact),
    quotas_within_failover_bound: quotas.every((q) => q.within_failover_bound),
    grant_refreshes: finalRefresh.status === 200,
    grants_lost: grantsLost.map((g) => ({ phase: g.phase, answer: g.answer })),
    user_present: users.some((u) => u.email === email),
    keys_present: keysAlive,
    enrichment_completed: !config.BENCH_CHAOS_FAULTS.has('worker')
      ? null
      : enrichment.status === 'completed' &&
        enrichment.batches_done === enrichment.batches_total &&
        enrichment.rows_seen === enrichment.rows_total,
  };
  for (const q of quotas) say(`key ${q.key}: admitted ${q.admitted} (+${q.unanswered} unanswered), used_today +${q.used_today_delta}`);
  say(
    `enrichment: ${JSON.stringify({ status: enrichment.status, batches: `${String(enrichment.batches_done)}/${String(enrichment.batches_total)}`, rows: `${String(enrichment.rows_seen)}/${String(enrichment.rows_total)}`, failed: enrichment.batches_failed })}`,
  );
  say(`nothing lost: ${JSON.stringify(lost)}`);
  process.stdout.write(
    `${JSON.stringify({ bench: 'chaos', concurrency: config.BENCH_CONCURRENCY, settle_s: config.BENCH_CHAOS_SETTLE_S, faults: results, quotas, lost })}\n`,
  );
} finally {
  running = false;
  zipfRunning = false;
  // Never leave Elasticsearch frozen, whatever failed.
  for (const pid of frozen) {
    try {
      process.kill(pid, 'SIGCONT');
    } catch {
      // gone already
    }
  }
  if (startedCluster) {
    say('stopping the cluster this bench started');
    const exited = new Promise((resolve) => startedCluster?.once('exit', resolve));
    startedCluster.kill('SIGTERM');
    await exited;
  }
}

function createKey(env: NodeJS.ProcessEnv, owner: string, quota: number, burst: number): string {
  const out = ops(env, [
    'keys',
    'create',
    '--owner',
    owner,
    '--quota',
    String(quota),
    '--burst',
    String(burst),
    '--refill',
    '1000000',
    '--json',
  ]);
  return (JSON.parse(out) as { api_key: string }).api_key;
}

// ---- every Elasticsearch node stopped under a Zipf workload ----

async function zipfWorker(worker: number, plan: readonly string[], key: string): Promise<void> {
  for (let i = worker; zipfRunning; i += ZIPF_WORKERS) {
    const target = plan[i % plan.length] ?? '/v1/fragrances';
    const start = Date.now();
    let sample: ZipfSample = { target, start, end: start, status: 0, stale: false, hash: null };
    try {
      const res = await fetch(`${EDGE}${target}`, {
        headers: { authorization: `Bearer ${key}` },
        signal: AbortSignal.timeout(config.BENCH_REQUEST_TIMEOUT_MS),
      });
      const text = await res.text();
      const stale = (res.headers.get('cache-status') ?? '').includes('stale-if-error');
      const hash = res.status === 200 ? dataIdsHash(JSON.parse(text) as unknown) : null;
      sample = { ...sample, status: res.status, stale, hash };
    } catch {
      // no answer: status 0
    }
    sample.end = Date.now();
    zipfSamples.push(sample);
  }
}

/**
 * Warm the caches with the Zipf workload, SIGSTOP every Elasticsearch node for OUTAGE_MS (frozen,
 * so the cluster's watchdog sees them running and restarts none), SIGCONT them, and wait until an
 * uncached search answers again.
 */
async function esOutage(key: string, ids: readonly string[]): Promise<NonNullable<PhaseFigures['es_outage']>> {
  const targets = zipfTargets(WORDS, ids, 37);
  const plan = zipfPlan(targets, 200_000, 37);
  zipfRunning = true;
  const workers = Array.from({ length: ZIPF_WORKERS }, (_, w) => zipfWorker(w, plan, key));
  try {
    const warmStart = Date.now();
    await until(`the Zipf workload to send ${ZIPF_WARM_REQUESTS} requests`, ZIPF_WARM_MAX_MS, () =>
      Promise.resolve(zipfSamples.length >= ZIPF_WARM_REQUESTS),
    ).catch((error: unknown) => say(`  ${String(error)}; stopping Elasticsearch anyway`));
    const warmedWith = zipfSamples.length;
    say(`  warmed with ${warmedWith} Zipf requests in ${Date.now() - warmStart} ms`);
    const nodes = (await status()).elasticsearch.nodes;
    const stopAt = Date.now();
    for (const node of nodes) {
      if (!node.pid) throw new Error(`no pid for Elasticsearch ${node.node}`);
      say(`SIGSTOP Elasticsearch ${node.node} (pid ${node.pid})`);
      process.kill(node.pid, 'SIGSTOP');
      frozen.add(node.pid);
    }
    await sleep(OUTAGE_MS);
    const resumeAt = Date.now();
    for (const pid of frozen) process.kill(pid, 'SIGCONT');
    frozen.clear();
    say('SIGCONT every Elasticsearch node');
    let answersAgainAfter: number | null = null;
    let recoveredAt = Number.POSITIVE_INFINITY;
    // Sent with the Zipf key, so each probe is one of its samples: the 200 that ends the wait is
    // counted in its used_today (it was the one request over in the run before this was so).
    await until('an uncached search to answer again', 120_000, async () => {
      const target = `/v1/fragrances?query=rose+${randomBytes(4).toString('hex')}&limit=3`;
      const probe: ZipfSample = { target, start: Date.now(), end: 0, status: 0, stale: false, hash: null };
      try {
        const res = await fetch(`${EDGE}${target}`, {
          headers: { authorization: `Bearer ${key}` },
          signal: AbortSignal.timeout(config.BENCH_REQUEST_TIMEOUT_MS),
        });
        await res.arrayBuffer();
        probe.status = res.status;
      } finally {
        probe.end = Date.now();
        zipfSamples.push(probe);
      }
      return probe.status === 200;
    }).then(
      () => {
        recoveredAt = Date.now();
        answersAgainAfter = recoveredAt - resumeAt;
      },
      (error: unknown) => say(`  ${String(error)}`),
    );
    // A while longer, so a target first answered during the outage has an answer after it to compare with.
    if (Number.isFinite(recoveredAt)) await sleep(ZIPF_AFTER_MS);
    const before = answersBefore(zipfSamples.filter((x) => x.start < stopAt));
    const after = answersBefore(zipfSamples.filter((x) => x.start >= recoveredAt));
    const during = outageFigures(
      zipfSamples.filter((x) => x.start >= stopAt && x.start < resumeAt),
      before,
      after,
    );
    say(
      `  Zipf workload while Elasticsearch was stopped: ${JSON.stringify(during)}; searches answer again ${String(answersAgainAfter)} ms after SIGCONT`,
    );
    return {
      ...during,
      outage_ms: resumeAt - stopAt,
      targets: targets.length,
      warmed_targets: before.size,
      warm_requests: warmedWith,
      searches_answer_again_after_ms: answersAgainAfter,
    };
  } finally {
    zipfRunning = false;
    await Promise.all(workers);
  }
}

async function usedToday(key: string): Promise<number> {
  return (await createFragranceClient({ baseUrl: `${EDGE}/v1`, apiKey: key }).me()).used_today;
}

async function oauthGrant(email: string, password: string): Promise<Grant> {
  const redirectUri = 'http://127.0.0.1:9/callback';
  const registered = await fetch(`${EDGE}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'chaos bench',
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: 'none',
    }),
  });
  if (registered.status !== 201) throw new Error(`registration failed: ${registered.status} ${await registered.text()}`);
  const clientId = ((await registered.json()) as { client_id: string }).client_id;
  const verifier = randomBytes(32).toString('base64url');
  const url = new URL(`${EDGE}/oauth/authorize`);
  for (const [k, v] of Object.entries({
    client_id: clientId,
    redirect_uri: redirectUri,
    response_type: 'code',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    scope: 'catalogue:read offline_access',
    resource: `${EDGE}/mcp`,
    state: randomBytes(6).toString('hex'),
    prompt: 'consent',
  }))
    url.searchParams.set(k, v);
  const final = await new FormUser(EDGE).authorize(url.href, { email, password });
  const code = final.location ? new URL(final.location).searchParams.get('code') : null;
  if (!code) throw new Error(`no authorization code: ${final.status} ${final.body.slice(0, 300)}`);
  const res = await fetch(`${EDGE}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      client_id: clientId,
      code_verifier: verifier,
    }).toString(),
  });
  const tokens = (await res.json()) as { access_token?: string; refresh_token?: string };
  if (!tokens.access_token || !tokens.refresh_token)
    throw new Error(`token exchange gave no access + refresh token: ${JSON.stringify(tokens)}`);
  return { clientId, access: tokens.access_token, refresh: tokens.refresh_token };
}
