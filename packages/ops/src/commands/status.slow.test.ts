// `ops status` against real metrics servers (prom-client, as the services expose them), directly
// and through a real Prometheus scraping them (infra/prometheus.sh, Debian's package).
import { spawnSync } from 'node:child_process';
import type { Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import express from 'express';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configureMetrics, Counter, Gauge, httpMetrics, prometheusConfig, serveMetrics, type MetricsServer } from '@fragrance/metrics';
import { close, freePort, listen, REPO_ROOT, startFaultProxy, waitFor } from '@fragrance/testkit';
import { UsageError } from '../command.ts';
import { statusCommand, type StackStatus } from './status.ts';

describe('ops status', () => {
  let app: Server;
  let base: string;
  let metrics: MetricsServer;
  let deadPort: number;

  beforeAll(async () => {
    configureMetrics({ service: 'gateway', enabled: true });
    const admissions = new Counter({ name: 'gateway_admissions_total', help: 'test', labelNames: ['mode', 'outcome'] as const });
    // As the catalogue reports its Elasticsearch breaker: open here, so the instance is degraded.
    const breaker = new Gauge({ name: 'catalogue_elasticsearch_breaker_state', help: 'test', labelNames: ['state'] as const });
    for (const state of ['closed', 'open', 'half_open']) breaker.set({ state }, state === 'open' ? 1 : 0);
    // As a gateway reports admitting without Redis.
    new Gauge({ name: 'gateway_admission_degraded', help: 'test' }).set(1);
    const web = express();
    web.use(httpMetrics());
    web.get('/v1/fragrances', (req, res) => {
      const refused = req.query.refuse === '1';
      admissions.inc({ mode: 'admit', outcome: refused ? 'quota_exceeded' : 'admitted' });
      res.status(req.query.fail === '1' ? 500 : refused ? 429 : 200).end();
    });
    app = web.listen(0, '127.0.0.1');
    base = await listen(app);
    metrics = await serveMetrics({ host: '127.0.0.1', port: 0, logger: pino({ level: 'silent' }) });
    deadPort = await freePort();
  });
  afterAll(async () => {
    await close(app);
    await metrics.close();
  });

  async function status(argv: string[], env: Record<string, string> = {}): Promise<string> {
    const stdout = new PassThrough();
    const chunks: Buffer[] = [];
    stdout.on('data', (c: Buffer) => chunks.push(c));
    await statusCommand.run({ argv, env, stdout, stderr: new PassThrough(), stdin: new PassThrough() });
    return Buffer.concat(chunks).toString();
  }
  const traffic = async () => {
    for (const query of ['', '', '', '', '', '', 'fail=1', 'refuse=1']) await (await fetch(`${base}/v1/fragrances?${query}`)).arrayBuffer();
  };

  it('without Prometheus, scrapes the metrics ports over a window: rate, errors, latency, instances down', async () => {
    // Through a proxy, to see the first scrape answered: the traffic must fall inside the window.
    const proxy = await startFaultProxy(`http://127.0.0.1:${metrics.port}`);
    const gatewayTarget = new URL(proxy.url).host;
    const targets = `gateway=${gatewayTarget},catalogue=127.0.0.1:${deadPort}`;
    const running = status(['--json', '--window', '1', '--targets', targets, '--prometheus', `http://127.0.0.1:${deadPort}`]);
    await expect.poll(() => proxy.answered).toBeGreaterThan(0);
    await traffic();
    const result = JSON.parse(await running) as StackStatus;
    expect(result.source).toContain('metrics ports');
    const gateway = result.services.find((s) => s.service === 'gateway')!;
    expect(gateway).toMatchObject({ instancesUp: 1, instances: 1, errorRatio: 1 / 8 });
    expect(gateway.requestsPerSecond).toBeCloseTo(8, 5);
    expect(gateway.p99Seconds).toBeGreaterThan(0);
    expect(result.quotaDenialsPerSecond).toBeCloseTo(1, 5);
    expect(result.services.find((s) => s.service === 'catalogue')).toMatchObject({ instancesUp: 0, instances: 1, requestsPerSecond: null });
    expect(result.degraded).toEqual([
      { service: 'gateway', instance: gatewayTarget, condition: 'elasticsearch breaker open' },
      { service: 'gateway', instance: gatewayTarget, condition: 'admitting without redis' },
    ]);

    const text = await status(['--window', '1', '--targets', targets, '--prometheus', `http://127.0.0.1:${deadPort}`]);
    expect(text).toMatch(/^gateway\s+1\/1 up /m);
    expect(text).toMatch(/^catalogue\s+0\/1 up /m);
    expect(text).toContain('last enrichment run: –');
    expect(text).toContain(`degraded: gateway ${gatewayTarget} (elasticsearch breaker open)`);
    expect(text).toContain(`; gateway ${gatewayTarget} (admitting without redis)`);
    await proxy.close();
  });

  it('refuses bad options with a usage error', async () => {
    await expect(status(['--window', '0'])).rejects.toBeInstanceOf(UsageError);
    await expect(status(['--targets', 'gateway'])).rejects.toThrow('must be service=host:port');
  });

  describe('with a real Prometheus', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ops-status-'));
    const name = `ops-status-${process.pid}`;
    const script = (...args: string[]) => spawnSync('bash', [join(REPO_ROOT, 'infra/prometheus.sh'), ...args], { encoding: 'utf8' });
    let prometheus = '';

    beforeAll(async () => {
      const port = await freePort();
      prometheus = `http://127.0.0.1:${port}`;
      const config = join(dir, 'prometheus.yml');
      const rules = [join(REPO_ROOT, 'infra/prometheus/rules/*.yml')];
      writeFileSync(
        config,
        prometheusConfig({
          targets: [{ service: 'gateway', address: `127.0.0.1:${metrics.port}` }],
          ruleFiles: rules,
          scrapeInterval: '1s',
        }),
      );
      const started = script('start', '--name', name, '--port', String(port), '--config', config);
      expect(started.status, started.stderr).toBe(0);
    }, 600_000);
    afterAll(() => {
      script('stop', '--name', name, '--purge');
      rmSync(dir, { recursive: true, force: true });
    });

    it('reads the recording rules', async () => {
      const result = await waitFor(
        async () => {
          await traffic();
          const seen = JSON.parse(await status(['--json'], { PROMETHEUS_URL: prometheus })) as StackStatus;
          const gateway = seen.services.find((s) => s.service === 'gateway');
          return gateway?.requestsPerSecond && gateway.errorRatio !== null && seen.quotaDenialsPerSecond ? seen : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 500, description: 'recording rules in ops status' },
      );
      expect(result.source).toBe(`prometheus ${prometheus}`);
      expect(result.services).toEqual([expect.objectContaining({ service: 'gateway', instancesUp: 1, instances: 1 })]);
      expect(result.services[0]!.errorRatio).toBeGreaterThan(0);
      expect(result.services[0]!.p99Seconds).toBeGreaterThan(0);
      expect(result.degraded).toEqual([
        expect.objectContaining({ service: 'gateway', condition: 'elasticsearch breaker open' }),
        expect.objectContaining({ service: 'gateway', condition: 'admitting without redis' }),
      ]);
    }, 40_000);
  });
});
