import type { Server } from 'node:http';
import express from 'express';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { close, listen } from '@fragrance/testkit';
import { httpMetrics } from './http.ts';
import { configureMetrics, metricsRegistry } from './registry.ts';
import { serveMetrics, type MetricsServer } from './server.ts';

const logger = pino({ level: 'silent' });

/** The value of one series in the registry's text output, e.g. a histogram's `_count`. */
async function sample(name: string, labels: Record<string, string>): Promise<number | undefined> {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of (await metricsRegistry.metrics()).split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    if (wanted.every((pair) => line.includes(pair))) return Number(line.split(' ').at(-1));
  }
  return undefined;
}

describe('HTTP metrics', () => {
  let server: Server;
  let base: string;
  let metrics: MetricsServer;

  beforeAll(async () => {
    configureMetrics({ service: 'metrics-test', enabled: true });
    const app = express();
    app.use(httpMetrics({ mounts: ['/mounted'] }));
    app.get('/items/:id', (_req, res) => void res.json({ ok: true }));
    const router = express.Router();
    router.get('/:name', (_req, res) => void res.status(503).end());
    app.use('/nested', router);
    app.use('/mounted', (_req, res) => void res.status(201).end());
    app.use((_req, res) => void res.status(404).end());
    server = app.listen(0, '127.0.0.1');
    base = await listen(server);
    metrics = await serveMetrics({ host: '127.0.0.1', port: 0, logger });
  });
  afterAll(async () => {
    await close(server);
    await metrics.close();
  });

  it('labels requests by route template, method and status class, never by raw path', async () => {
    for (const id of ['a1', 'b2', 'c3']) await (await fetch(`${base}/items/${id}?q=secret`)).arrayBuffer();
    await (await fetch(`${base}/nested/thing`)).arrayBuffer();
    await (await fetch(`${base}/mounted/deep/path`, { method: 'POST' })).arrayBuffer();
    await (await fetch(`${base}/no/such/${'x'.repeat(20)}`)).arrayBuffer();

    const count = 'http_request_duration_seconds_count';
    expect(await sample(count, { route: '/items/:id', method: 'GET', status_class: '2xx', service: 'metrics-test' })).toBe(3);
    expect(await sample(count, { route: '/nested/:name', method: 'GET', status_class: '5xx' })).toBe(1);
    expect(await sample(count, { route: '/mounted', method: 'POST', status_class: '2xx' })).toBe(1);
    expect(await sample(count, { route: 'unmatched', method: 'GET', status_class: '4xx' })).toBe(1);
    const text = await metricsRegistry.metrics();
    for (const raw of ['a1', 'b2', 'secret', 'xxxxxxxxxx', 'deep']) expect(text).not.toContain(raw);
  });

  it('serves the Prometheus text format on its own port, with the default process metrics', async () => {
    const res = await fetch(`http://127.0.0.1:${metrics.port}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    expect(text).toContain('# TYPE http_request_duration_seconds histogram');
    expect(text).toMatch(/^process_cpu_user_seconds_total\{service="metrics-test"\} /m);
    expect(text).toContain('nodejs_eventloop_lag_seconds');
    expect((await fetch(`http://127.0.0.1:${metrics.port}/other`)).status).toBe(404);
  });
});

describe('METRICS_ENABLED=false', () => {
  it('makes the middleware a pass-through and serves nothing', async () => {
    configureMetrics({ service: 'metrics-test', enabled: false });
    try {
      const app = express();
      app.use(httpMetrics());
      app.get('/off/:id', (_req, res) => void res.end());
      const server = app.listen(0, '127.0.0.1');
      const base = await listen(server);
      await (await fetch(`${base}/off/1`)).arrayBuffer();
      await close(server);
      expect(await sample('http_request_duration_seconds_count', { route: '/off/:id' })).toBeUndefined();
      const metrics = await serveMetrics({ host: '127.0.0.1', port: 0, logger: logger });
      expect(metrics.port).toBeUndefined();
    } finally {
      configureMetrics({ service: 'metrics-test', enabled: true });
    }
  });
});
