import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Express } from 'express';
import type { Logger } from 'pino';
import { Lifecycle } from './health.ts';

/** Default of SHUTDOWN_TIMEOUT_MS: longest a drain may take before the remaining connections are cut. */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;

/** Longest the service's own shutdown (closing Redis, Elasticsearch, queues) may take after the drain. */
const CLOSE_DEPENDENCIES_TIMEOUT_MS = 5_000;

export interface ServeOptions {
  app: Express;
  host: string;
  port: number;
  logger: Logger;
  /** Flipped to draining on SIGTERM/SIGINT; the same one the app's `/health/ready` reads. */
  lifecycle?: Lifecycle;
  /** Closes the service's own connections (Redis, Elasticsearch, queues) after HTTP drains. */
  onShutdown?: () => Promise<void>;
  /** Longest the drain may take (SHUTDOWN_TIMEOUT_MS); connections still open then are cut. */
  shutdownTimeoutMs?: number;
}

/**
 * Makes a server drainable; call right after it listens. `drain(timeoutMs)` then: fails readiness
 * at once, closes the listening socket (new connections are refused, so a load balancer retries
 * them elsewhere), closes idle keep-alive connections, makes every response not yet started (in
 * flight or arriving on an open connection) say `Connection: close` so its connection ends after
 * it, and lets in-flight requests finish. It resolves once the last connection is gone
 * (`drained: true`) or after timeoutMs, having cut whatever was still open (`drained: false`).
 */
export function drainable(server: Server, lifecycle: Lifecycle): { drain: (timeoutMs: number) => Promise<{ drained: boolean }> } {
  const unanswered = new Set<ServerResponse>();
  // First listener of every request: runs before the app's handler.
  server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
    if (lifecycle.draining) {
      res.setHeader('connection', 'close');
      return;
    }
    unanswered.add(res);
    const forget = () => unanswered.delete(res);
    res.once('finish', forget).once('close', forget);
  });
  const drain = (timeoutMs: number) => {
    lifecycle.startDraining();
    for (const res of unanswered) if (!res.headersSent) res.setHeader('connection', 'close');
    unanswered.clear();
    return new Promise<{ drained: boolean }>((resolve) => {
      const timer = setTimeout(() => {
        server.closeAllConnections();
        resolve({ drained: false });
      }, timeoutMs);
      // close() stops accepting and closes idle connections; its callback runs when none is left.
      server.close(() => {
        clearTimeout(timer);
        resolve({ drained: true });
      });
      server.closeIdleConnections();
    });
  };
  return { drain };
}

/** Listens, then on SIGTERM/SIGINT drains (see {@link drainable}), closes the service's connections and exits. */
export async function serve(options: ServeOptions): Promise<Server> {
  const { app, host, port, logger, onShutdown, lifecycle = new Lifecycle(), shutdownTimeoutMs = DEFAULT_SHUTDOWN_TIMEOUT_MS } = options;
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(port, host, (error?: Error) => (error ? reject(error) : resolve(s)));
  });
  server.keepAliveTimeout = 65_000;
  const { drain } = drainable(server, lifecycle);
  logger.info({ host, port }, `listening on http://${host}:${port}`);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, timeout_ms: shutdownTimeoutMs }, 'draining: readiness fails, no new connections, finishing in-flight requests');
    const { drained } = await drain(shutdownTimeoutMs);
    if (!drained) logger.warn({ timeout_ms: shutdownTimeoutMs }, 'drain timed out; open connections were cut');
    setTimeout(() => {
      logger.error('closing dependencies timed out; exiting');
      process.exit(1);
    }, CLOSE_DEPENDENCIES_TIMEOUT_MS).unref();
    try {
      await onShutdown?.();
      logger.info({ drained }, 'stopped');
      process.exit(drained ? 0 : 1);
    } catch (error) {
      logger.error({ err: error }, 'error during shutdown');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
  return server;
}
