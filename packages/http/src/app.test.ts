import { Writable } from 'node:stream';
import type { Express } from 'express';
import { metricsRegistry } from '@fragrance/metrics';
import { describe, expect, it } from 'vitest';
import { serviceApp } from './app.ts';
import { createLogger } from './logger.ts';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

async function get(app: Express, path: string, headers: Record<string, string> = {}): Promise<Response> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  try {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers });
    await res.arrayBuffer();
    return res;
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

function capturedLogger() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: createLogger('app-test', 'info', destination) };
}

async function mountedRequests(route: string): Promise<number> {
  const metric = await metricsRegistry.getSingleMetric('http_request_duration_seconds')?.get();
  const count = metric?.values.find(
    (v) => 'metricName' in v && v.metricName === 'http_request_duration_seconds_count' && v.labels.route === route,
  );
  return count?.value ?? 0;
}

describe('serviceApp', () => {
  it('with a head, logs each request once with the trace it joined and labels a metric mount by its prefix', async () => {
    const { lines, logger } = capturedLogger();
    const app = serviceApp({ logger, metricMounts: ['/sdk'] }, (routes) => {
      // Served by middleware, as an SDK transport is: no express route to label it by.
      routes.use('/sdk', (_req, res) => void res.status(204).end());
    });
    const before = await mountedRequests('/sdk');

    const res = await get(app, '/sdk/session/1', { traceparent: `00-${TRACE_ID}-00f067aa0ba902b7-01` });

    expect(res.status).toBe(204);
    const requestLines = () => lines.filter((line) => line.req !== undefined);
    await expect.poll(requestLines).toHaveLength(1);
    expect(requestLines()[0]).toMatchObject({ trace_id: TRACE_ID, req: { path: '/sdk/session/1' }, res: { status: 204 } });
    await expect.poll(() => mountedRequests('/sdk')).toBe(before + 1);
  });

  it('answers an unknown path 404 problem+json, with or without a head', async () => {
    for (const app of [serviceApp(() => {}), serviceApp({ logger: createLogger('app-test', 'silent') }, () => {})]) {
      const res = await get(app, '/nowhere');
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(res.headers.get('x-powered-by')).toBeNull();
    }
  });
});
