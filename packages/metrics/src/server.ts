import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { metricsEnabled, metricsRegistry } from './registry.ts';

export interface MetricsServerOptions {
  /** METRICS_HOST: loopback by default, so the edge never exposes it. */
  host: string;
  /** METRICS_PORT; 0 picks a free port (tests). */
  port: number;
  logger: Logger;
}

export interface MetricsServer {
  /** The port it listens on; undefined when metrics are disabled. */
  port: number | undefined;
  close(): Promise<void>;
}

/**
 * GET /metrics in Prometheus text format on its own port, apart from the service's HTTP app:
 * nothing the gateway proxies can reach it, and a scrape never queues behind customer traffic.
 */
export async function serveMetrics({ host, port, logger }: MetricsServerOptions): Promise<MetricsServer> {
  if (!metricsEnabled()) return { port: undefined, close: async () => undefined };
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: GET /metrics\n');
      return;
    }
    metricsRegistry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': metricsRegistry.contentType }).end(req.method === 'HEAD' ? undefined : text),
      (error: unknown) => {
        logger.error({ err: error }, 'collecting metrics failed');
        res.writeHead(500, { 'content-type': 'text/plain' }).end('collecting metrics failed\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  logger.info({ host, port: bound }, `metrics on http://${host}:${bound}/metrics`);
  return {
    port: bound,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
