// Shared by the gateway's *.test.ts files: a real gateway app on port 0 and a stand-in upstream.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { Writable } from 'node:stream';
import type { Redis } from 'ioredis';
import type { Clock } from '@fragrance/api-keys';
import { createLogger, type Logger } from '@fragrance/http';
import { close, listen } from '@fragrance/testkit';
import { buildApp } from './app.ts';
import { GatewayConfig } from './config.ts';
import { startDegradedAdmission } from './degraded-admission.ts';
import { createUpstreamAgent } from './proxy.ts';

// The one listen/close lives in the testkit; re-exported so the gateway's tests keep one import.
export { close, listen };

/** A stand-in catalogue that echoes what the gateway forwarded, or stalls when asked. */
export function fakeUpstream(onRequest?: (req: IncomingMessage) => void): Server {
  return createServer((req, res) => {
    onRequest?.(req);
    if (req.url === '/health') return void res.end('ok');
    if (req.url?.startsWith('/v1/fragrances/slow')) return; // never answers
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({ url: req.url, method: req.method, requestId: req.headers['x-request-id'], auth: req.headers.authorization ?? null }),
    );
  });
}

/** Log lines captured in memory, to search them. */
export function captureLogs(name = 'gateway-test'): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      callback();
    },
  });
  return { logger: createLogger(name, 'trace', destination), lines };
}

export interface GatewayUnderTest {
  server: Server;
  url: string;
  close: () => Promise<void>;
}

export async function startGateway(options: {
  redis: Redis;
  prefix: string;
  upstreamUrl: string;
  env?: Record<string, string>;
  clock?: Clock;
  logger?: Logger;
  /** Admit recently seen keys while Redis cannot answer (journal in env's ADMISSION_JOURNAL_DIR). */
  degraded?: boolean;
}): Promise<GatewayUnderTest> {
  const config = GatewayConfig.parse({
    CATALOGUE_SERVICE_URL: options.upstreamUrl,
    UPSTREAM_TIMEOUT_MS: '300',
    REDIS_PREFIX: options.prefix,
    ...options.env,
  });
  const agents = {
    catalogue: createUpstreamAgent(),
    ...(config.AUTH_SERVICE_URL ? { auth: createUpstreamAgent() } : {}),
    ...(config.MCP_SERVICE_URL ? { mcp: createUpstreamAgent() } : {}),
  };
  const logger = options.logger ?? createLogger('gateway-test', 'silent');
  const degraded = options.degraded
    ? startDegradedAdmission({ config, redis: options.redis, logger, ...(options.clock ? { clock: options.clock } : {}) })
    : undefined;
  const server = createServer(
    buildApp({
      config,
      logger,
      redis: options.redis,
      agents,
      ...(options.clock ? { clock: options.clock } : {}),
      ...(degraded ? { degraded } : {}),
    }),
  );
  const url = await listen(server);
  return {
    server,
    url,
    close: async () => {
      await close(server);
      degraded?.close();
      await Promise.all(Object.values(agents).map((agent) => agent.close()));
    },
  };
}

export const bearer = (apiKey: string) => ({ authorization: `Bearer ${apiKey}` });
