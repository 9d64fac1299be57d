// The rules and the config generator against a real Prometheus (Debian's package, installed by
// the bootstrap through infra/prometheus.sh): promtool checks and unit-tests the rules, and a Prometheus
// started on a generated config scrapes a metrics server and fills the recording rules.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { close, freePort, listen, REPO_ROOT, waitFor } from '@fragrance/testkit';
import { httpMetrics } from './http.ts';
import { parseTargets, prometheusConfig } from './prometheus-config.ts';
import { configureMetrics } from './registry.ts';
import { serveMetrics, type MetricsServer } from './server.ts';

const RULES = [join(REPO_ROOT, 'infra/prometheus/rules/*.yml')];
const script = (...args: string[]) => spawnSync('bash', [join(REPO_ROOT, 'infra/prometheus.sh'), ...args], { encoding: 'utf8' });

beforeAll(() => {
  // Debian's prometheus, installed by the bootstrap (npm run test:slow runs infra/prometheus.sh ensure).
  const found = spawnSync('bash', ['-c', 'command -v prometheus && command -v promtool'], { encoding: 'utf8' });
  expect(found.status, 'prometheus is missing: npm run test:slow installs it (bash infra/prometheus.sh ensure)').toBe(0);
});

describe('alert and recording rules', () => {
  it('pass promtool check rules and every unit test in infra/prometheus/tests', () => {
    const run = script('test-rules');
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toMatch(/SUCCESS/);
  });
});

describe('prometheusConfig', () => {
  const dir = mkdtempSync(join(tmpdir(), 'prom-config-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes a config promtool accepts, one job per service with all its instances', () => {
    const text = prometheusConfig({
      targets: parseTargets(['gateway=127.0.0.1:9480', 'gateway=127.0.0.1:9490', 'catalogue=127.0.0.1:9481']),
      ruleFiles: RULES,
    });
    const file = join(dir, 'prometheus.yml');
    writeFileSync(file, text);
    const checked = spawnSync('promtool', ['check', 'config', file], { encoding: 'utf8' });
    expect(checked.status, `${checked.stdout}\n${checked.stderr}`).toBe(0);
    const config = JSON.parse(text) as { scrape_configs: { job_name: string; static_configs: { targets: string[] }[] }[] };
    expect(config.scrape_configs).toEqual([
      expect.objectContaining({ job_name: 'gateway', static_configs: [{ targets: ['127.0.0.1:9480', '127.0.0.1:9490'] }] }),
      expect.objectContaining({ job_name: 'catalogue', static_configs: [{ targets: ['127.0.0.1:9481'] }] }),
    ]);
  });

  it('refuses bad targets and intervals with a message naming them', () => {
    expect(() => parseTargets(['gateway'])).toThrow('target "gateway" must be service=host:port');
    expect(() => prometheusConfig({ targets: parseTargets(['gateway=nohost']), ruleFiles: RULES })).toThrow(
      'target "nohost" of gateway must be host:port',
    );
    expect(() => prometheusConfig({ targets: [], ruleFiles: RULES })).toThrow('no scrape targets');
    expect(() => prometheusConfig({ targets: parseTargets(['Gate=a:1']), ruleFiles: RULES })).toThrow('service name "Gate"');
    expect(() => prometheusConfig({ targets: parseTargets(['gateway=a:1']), ruleFiles: RULES, scrapeInterval: 'often' })).toThrow(
      '"often"',
    );
  });
});

describe('a real Prometheus scraping a service', () => {
  const dir = mkdtempSync(join(tmpdir(), 'prom-run-'));
  const name = `test-${process.pid}`;
  let prometheus = '';
  let metrics: MetricsServer;
  let app: ReturnType<typeof express.application.listen> | undefined;

  beforeAll(async () => {
    configureMetrics({ service: 'gateway', enabled: true });
    metrics = await serveMetrics({ host: '127.0.0.1', port: 0, logger: pino({ level: 'silent' }) });
    const web = express();
    web.use(httpMetrics());
    web.get('/v1/fragrances', (_req, res) => void res.json({}));
    app = web.listen(0, '127.0.0.1');
    const base = await listen(app);
    for (let i = 0; i < 20; i++) await (await fetch(`${base}/v1/fragrances`)).arrayBuffer();

    const port = await freePort();
    prometheus = `http://127.0.0.1:${port}`;
    const config = join(dir, 'prometheus.yml');
    writeFileSync(
      config,
      prometheusConfig({ targets: [{ service: 'gateway', address: `127.0.0.1:${metrics.port}` }], ruleFiles: RULES, scrapeInterval: '1s' }),
    );
    const started = script('start', '--name', name, '--port', String(port), '--config', config);
    expect(started.status, started.stderr).toBe(0);
  }, 60_000);
  afterAll(async () => {
    script('stop', '--name', name, '--purge');
    if (app) await close(app);
    await metrics.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const query = async (expr: string) => {
    const res = await fetch(`${prometheus}/api/v1/query?query=${encodeURIComponent(expr)}`);
    return ((await res.json()) as { data: { result: { metric: Record<string, string>; value: [number, string] }[] } }).data.result;
  };

  it('shows the instance up and fills the recording rules', async () => {
    const up = await waitFor(async () => (await query('up{job="gateway"} == 1')).length === 1, {
      timeoutMs: 20_000,
      description: 'target up',
    });
    expect(up).toBe(true);
    // The requests happened before the first scrape; the rate needs a second sample with new ones.
    const recorded = await waitFor(async () => (await query('service:http_requests:rate5m{service="gateway"}'))[0], {
      timeoutMs: 20_000,
      description: 'service:http_requests:rate5m recorded',
    });
    expect(Number(recorded.value[1])).toBeGreaterThanOrEqual(0);
    expect(await query('dependency_up')).toEqual([]);
  }, 45_000);
});
