// `npm run ops -- status`: the one screen an operator opens. Reads Prometheus when one answers
// (its recording rules), else scrapes each service's metrics port twice and computes the same
// figures over that window.
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { DEV_PORTS, httpUrl, parseConfig, STACK_SERVICES } from '@fragrance/config';
import { histogramQuantile, parsePrometheusText, parseTargets, type Sample, type ScrapeTarget } from '@fragrance/metrics';
import { parseOptions, UsageError, type Command, type CommandContext } from '../command.ts';

/** The default metrics ports (docs/observability.md), as `npm start` runs the stack. */
const DEFAULT_TARGETS = STACK_SERVICES.map((service) => `${service}=127.0.0.1:${DEV_PORTS.services[service].metrics}`).join(',');

export const StatusConfig = z.object({
  PROMETHEUS_URL: httpUrl().default(`http://127.0.0.1:${DEV_PORTS.prometheus}`),
  /** service=host:port,… scraped directly when Prometheus does not answer. */
  METRICS_TARGETS: z.string().default(DEFAULT_TARGETS),
});

export interface ServiceStatus {
  service: string;
  instancesUp: number;
  instances: number;
  requestsPerSecond: number | null;
  errorRatio: number | null;
  p50Seconds: number | null;
  p99Seconds: number | null;
}

export interface StackStatus {
  source: string;
  services: ServiceStatus[];
  quotaDenialsPerSecond: number | null;
  /** queue → state → jobs */
  queues: Record<string, Record<string, number>>;
  lastEnrichmentRun: { outcome: string; finishedAt: string } | null;
  /** Instances answering in a degraded mode right now (see DEGRADED), e.g. a catalogue with its Elasticsearch breaker open. */
  degraded: DegradedInstance[];
}

export interface DegradedInstance {
  service: string;
  instance: string;
  /** What is degraded, e.g. `elasticsearch breaker open`. */
  condition: string;
}

/**
 * Gauges that say an instance is degraded: a series at 1 (with `label` in `states`, for a gauge
 * per state). Add a line per degraded mode a service reports.
 */
interface DegradedRule {
  metric: string;
  condition: string;
  label?: string;
  states?: readonly string[];
}
const DEGRADED: readonly DegradedRule[] = [
  { metric: 'catalogue_elasticsearch_breaker_state', label: 'state', states: ['open', 'half_open'], condition: 'elasticsearch breaker' },
  // A gateway admitting recently seen keys from memory while Redis cannot answer (docs/operations.md).
  { metric: 'gateway_admission_degraded', condition: 'admitting without redis' },
];

const degradedCondition = (rule: DegradedRule, state: string) =>
  rule.label ? `${rule.condition} ${state.replace('_', '-')}` : rule.condition;
const degradedQuery = (rule: DegradedRule) =>
  rule.label
    ? `max by (service, instance, ${rule.label}) (${rule.metric}{${rule.label}=~"${(rule.states ?? []).join('|')}"}) == 1`
    : `max by (service, instance) (${rule.metric}) == 1`;

const numberOrNull = (value: number | undefined): number | null => (value === undefined || !Number.isFinite(value) ? null : value);

// ---- from Prometheus -------------------------------------------------------------------------

interface VectorSample {
  metric: Record<string, string>;
  value: [number, string];
}

async function promQuery(base: string, expr: string): Promise<VectorSample[]> {
  const res = await fetch(`${base}/api/v1/query?query=${encodeURIComponent(expr)}`, { signal: AbortSignal.timeout(5_000) });
  const body = (await res.json()) as { status: string; error?: string; data?: { result: VectorSample[] } };
  if (body.status !== 'success') throw new Error(`Prometheus refused ${expr}: ${body.error ?? res.status}`);
  return body.data?.result ?? [];
}

export async function statusFromPrometheus(base: string): Promise<StackStatus> {
  const byLabel = async (expr: string, label: string) =>
    new Map((await promQuery(base, expr)).map((s) => [s.metric[label] ?? '', Number(s.value[1])]));
  const [up, total, rate, errors, p50, p99, denials, queues, lastRun] = await Promise.all([
    byLabel('sum by (job) (up)', 'job'),
    byLabel('count by (job) (up)', 'job'),
    byLabel('service:http_requests:rate5m', 'service'),
    byLabel('service:http_errors:ratio_rate5m', 'service'),
    byLabel('service:http_request_duration_seconds:p50_5m', 'service'),
    byLabel('service:http_request_duration_seconds:p99_5m', 'service'),
    promQuery(base, 'gateway:quota_denials:rate5m'),
    promQuery(base, 'queue:worker_queue_jobs:max'),
    promQuery(base, 'max by (outcome) (worker_enrichment_last_run_finished_timestamp_seconds)'),
  ]);
  const degraded: DegradedInstance[] = [];
  for (const rule of DEGRADED) {
    for (const s of await promQuery(base, degradedQuery(rule)))
      degraded.push({
        service: s.metric.service ?? '?',
        instance: s.metric.instance ?? '?',
        condition: degradedCondition(rule, rule.label ? (s.metric[rule.label] ?? '?') : ''),
      });
  }
  const queueDepth: StackStatus['queues'] = {};
  for (const s of queues) (queueDepth[s.metric.queue ?? '?'] ??= {})[s.metric.state ?? '?'] = Number(s.value[1]);
  const latest = lastRun.sort((a, b) => Number(b.value[1]) - Number(a.value[1]))[0];
  return {
    source: `prometheus ${base}`,
    services: [...total.keys()].sort().map((service) => ({
      service,
      instancesUp: up.get(service) ?? 0,
      instances: total.get(service) ?? 0,
      requestsPerSecond: numberOrNull(rate.get(service)),
      errorRatio: numberOrNull(errors.get(service)),
      p50Seconds: numberOrNull(p50.get(service)),
      p99Seconds: numberOrNull(p99.get(service)),
    })),
    quotaDenialsPerSecond: denials[0] ? numberOrNull(Number(denials[0].value[1])) : null,
    queues: queueDepth,
    lastEnrichmentRun: latest
      ? { outcome: latest.metric.outcome ?? '?', finishedAt: new Date(Number(latest.value[1]) * 1000).toISOString() }
      : null,
    degraded,
  };
}

// ---- from the metrics ports ------------------------------------------------------------------

async function scrape(target: ScrapeTarget): Promise<Sample[] | undefined> {
  try {
    const res = await fetch(`http://${target.address}/metrics`, { signal: AbortSignal.timeout(3_000) });
    return res.ok ? parsePrometheusText(await res.text()) : undefined;
  } catch {
    return undefined;
  }
}

const sum = (samples: readonly Sample[], name: string, match: (labels: Record<string, string>) => boolean = () => true) =>
  samples.filter((s) => s.name === name && match(s.labels)).reduce((total, s) => total + s.value, 0);

export async function statusFromMetricsPorts(targets: readonly ScrapeTarget[], windowMs: number): Promise<StackStatus> {
  const first = await Promise.all(targets.map(scrape));
  await sleep(windowMs);
  const second = await Promise.all(targets.map(scrape));
  const seconds = windowMs / 1000;
  const services = new Map<string, { up: number; all: number; before: Sample[]; after: Sample[] }>();
  targets.forEach((target, i) => {
    const entry = services.get(target.service) ?? { up: 0, all: 0, before: [], after: [] };
    entry.all += 1;
    const [a, b] = [first[i], second[i]];
    if (a && b) {
      entry.up += 1;
      entry.before.push(...a);
      entry.after.push(...b);
    }
    services.set(target.service, entry);
  });
  const delta = (e: { before: Sample[]; after: Sample[] }, name: string, match?: (l: Record<string, string>) => boolean) =>
    sum(e.after, name, match) - sum(e.before, name, match);
  const quantile = (e: { before: Sample[]; after: Sample[] }, q: number) => {
    const buckets = new Map<number, number>();
    for (const s of e.after)
      if (s.name === 'http_request_duration_seconds_bucket')
        buckets.set(Number(s.labels.le), (buckets.get(Number(s.labels.le)) ?? 0) + s.value);
    for (const s of e.before)
      if (s.name === 'http_request_duration_seconds_bucket')
        buckets.set(Number(s.labels.le), (buckets.get(Number(s.labels.le)) ?? 0) - s.value);
    return numberOrNull(histogramQuantile(q, buckets));
  };
  const all = [...services.values()];
  const gatewaySamples = { before: all.flatMap((e) => e.before), after: all.flatMap((e) => e.after) };
  const queues: StackStatus['queues'] = {};
  for (const s of all.flatMap((e) => e.after)) {
    if (s.name !== 'worker_queue_jobs') continue;
    const byState = (queues[s.labels.queue ?? '?'] ??= {});
    byState[s.labels.state ?? '?'] = Math.max(byState[s.labels.state ?? '?'] ?? 0, s.value);
  }
  const runs = all.flatMap((e) => e.after).filter((s) => s.name === 'worker_enrichment_last_run_finished_timestamp_seconds');
  const degraded: DegradedInstance[] = [];
  targets.forEach((target, i) => {
    for (const rule of DEGRADED)
      for (const s of second[i] ?? []) {
        const state = rule.label ? (s.labels[rule.label] ?? '') : '';
        if (s.name === rule.metric && s.value === 1 && (!rule.label || (rule.states ?? []).includes(state)))
          degraded.push({ service: target.service, instance: target.address, condition: degradedCondition(rule, state) });
      }
  });
  const latest = runs.sort((a, b) => b.value - a.value)[0];
  return {
    source: `metrics ports (${seconds} s window; no Prometheus)`,
    services: [...services].map(([service, e]) => {
      const requests = delta(e, 'http_request_duration_seconds_count');
      return {
        service,
        instancesUp: e.up,
        instances: e.all,
        requestsPerSecond: e.up > 0 ? requests / seconds : null,
        errorRatio: requests > 0 ? delta(e, 'http_request_duration_seconds_count', (l) => l.status_class === '5xx') / requests : null,
        p50Seconds: quantile(e, 0.5),
        p99Seconds: quantile(e, 0.99),
      };
    }),
    quotaDenialsPerSecond: services.has('gateway')
      ? delta(
          gatewaySamples,
          'gateway_admissions_total',
          (l) => l.mode === 'admit' && (l.outcome === 'quota_exceeded' || l.outcome === 'burst_limit_exceeded'),
        ) / seconds
      : null,
    queues,
    lastEnrichmentRun: latest ? { outcome: latest.labels.outcome ?? '?', finishedAt: new Date(latest.value * 1000).toISOString() } : null,
    degraded,
  };
}

// ---- printing --------------------------------------------------------------------------------

const fixed = (value: number | null, digits: number, unit = '') => (value === null ? '–' : `${value.toFixed(digits)}${unit}`);
const millis = (seconds: number | null) => (seconds === null ? '–' : `${(seconds * 1000).toFixed(seconds < 0.01 ? 1 : 0)} ms`);

export function formatStatus(status: StackStatus): string {
  const lines = [`source: ${status.source}`, ''];
  lines.push(
    `${'service'.padEnd(10)} ${'instances'.padEnd(10)} ${'req/s'.padStart(8)} ${'errors'.padStart(8)} ${'p50'.padStart(9)} ${'p99'.padStart(9)}`,
  );
  for (const s of status.services) {
    lines.push(
      `${s.service.padEnd(10)} ${`${s.instancesUp}/${s.instances} up`.padEnd(10)} ${fixed(s.requestsPerSecond, 2).padStart(8)} ` +
        `${(s.errorRatio === null ? '–' : `${(s.errorRatio * 100).toFixed(2)}%`).padStart(8)} ${millis(s.p50Seconds).padStart(9)} ${millis(s.p99Seconds).padStart(9)}`,
    );
  }
  lines.push('', `quota denials: ${fixed(status.quotaDenialsPerSecond, 2, '/s')}`);
  lines.push(
    `degraded: ${status.degraded.length === 0 ? '–' : status.degraded.map((d) => `${d.service} ${d.instance} (${d.condition})`).join('; ')}`,
  );
  const queues = Object.entries(status.queues);
  lines.push(
    queues.length === 0
      ? 'queues: –'
      : `queues: ${queues
          .map(
            ([queue, states]) =>
              `${queue} ${Object.entries(states)
                .map(([state, n]) => `${state} ${n}`)
                .join(', ')}`,
          )
          .join('; ')}`,
  );
  lines.push(
    `last enrichment run: ${status.lastEnrichmentRun ? `${status.lastEnrichmentRun.outcome.replaceAll('_', ' ')} at ${status.lastEnrichmentRun.finishedAt}` : '– (none finished since the workers started)'}`,
  );
  return `${lines.join('\n')}\n`;
}

async function prometheusAnswers(base: string): Promise<boolean> {
  try {
    return (await fetch(`${base}/-/ready`, { signal: AbortSignal.timeout(1_000) })).ok;
  } catch {
    return false;
  }
}

export const statusCommand: Command = {
  summary: 'each service: instances, request rate, error ratio, p50/p99, quota denials, degraded instances, queues, last enrichment run',
  usage: 'status [--prometheus URL] [--targets service=host:port,…] [--window 5] [--json]',
  run: async (ctx: CommandContext) => {
    const config = parseConfig(StatusConfig, ctx.env);
    const { values } = parseOptions(ctx.argv, {
      prometheus: { type: 'string' },
      targets: { type: 'string' },
      window: { type: 'string', default: '5' },
      json: { type: 'boolean', default: false },
    });
    const windowSeconds = Number(values.window);
    if (!Number.isFinite(windowSeconds) || windowSeconds <= 0 || windowSeconds > 300)
      throw new UsageError('--window must be 1 to 300 seconds');
    const base = (values.prometheus ?? config.PROMETHEUS_URL).replace(/\/+$/, '');
    let targets: ScrapeTarget[];
    try {
      targets = parseTargets((values.targets ?? config.METRICS_TARGETS).split(',').filter(Boolean));
    } catch (error) {
      throw new UsageError(error instanceof Error ? error.message : String(error));
    }
    const status = (await prometheusAnswers(base))
      ? await statusFromPrometheus(base)
      : await statusFromMetricsPorts(targets, windowSeconds * 1000);
    ctx.stdout.write(values.json ? `${JSON.stringify(status)}\n` : formatStatus(status));
  },
};
