import type { Server } from 'node:http';
import type { Express } from 'express';
import type { Logger } from 'pino';

export interface ServeOptions {
  app: Express;
  host: string;
  port: number;
  logger: Logger;
  /** Closes the service's own connections (Redis, Elasticsearch, queues) after HTTP drains. */
  onShutdown?: () => Promise<void>;
  /** Longest a graceful shutdown may take before the process exits anyway. */
  shutdownTimeoutMs?: number;
}

/** Listens, then on SIGTERM/SIGINT stops accepting, drains in-flight requests and exits. */
export async function serve(options: ServeOptions): Promise<Server> {
  const { app, host, port, logger, onShutdown, shutdownTimeoutMs = 10_000 } = options;
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(port, host, (error?: Error) => (error ? reject(error) : resolve(s)));
  });
  server.keepAliveTimeout = 65_000;
  logger.info({ host, port }, `listening on http://${host}:${port}`);

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error('shutdown timed out; exiting');
      process.exit(1);
    }, shutdownTimeoutMs);
    timer.unref();
    server.close(() => {
      void (async () => {
        try {
          await onShutdown?.();
          logger.info('stopped');
          process.exit(0);
        } catch (error) {
          logger.error({ err: error }, 'error during shutdown');
          process.exit(1);
        }
      })();
    });
    server.closeIdleConnections();
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
  return server;
}
