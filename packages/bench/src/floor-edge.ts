// The floor of bench:gateway (BENCH_FLOOR=1): the least a Node.js edge in front of the catalogue
// can do per request, run beside the real gateway in the same rotating segments. It parses the
// request, makes one Redis round trip (a counter, by the gateway's own Redis client settings: the
// least an edge that counts every request exactly must do), forwards the request over a
// kept-alive pool and streams the answer back. No key check, routing, logging, metrics, tracing or
// quota headers: whatever the gateway costs above this is its own; what this costs is Node's,
// the kernel's and the machine's. Not a service: nothing but the bench starts it.
//
// Env: PORT, REDIS_URL, CATALOGUE_SERVICE_URL (set by bench:gateway); FLOOR_COUNTER_KEY (the Redis
// key it counts requests in, default bench:floor-edge:requests).
import http from 'node:http';
import { Pool } from 'undici';
import { createLogger } from '@fragrance/http';
import { createRedisClient } from '@fragrance/redis';
import { benchConfig, FloorEdgeConfig } from './config.ts';

const { PORT: port, REDIS_URL: redisUrl, CATALOGUE_SERVICE_URL: upstreamUrl, FLOOR_COUNTER_KEY: counterKey } = benchConfig(FloorEdgeConfig);

const logger = createLogger('floor-edge', 'warn');
const redis = createRedisClient({ REDIS_URL: redisUrl, REDIS_COMMAND_TIMEOUT_MS: 1_000 }, logger, 'request-path');
// A script, as the gateway's admission is one (EVALSHA, one round trip).
redis.defineCommand('floorCount', {
  numberOfKeys: 1,
  lua: "local n = redis.call('INCR', KEYS[1]) redis.call('EXPIRE', KEYS[1], 3600) return n",
});
const count = (redis as unknown as { floorCount(key: string): Promise<number> }).floorCount.bind(redis);
// The gateway's pool settings (services/gateway/src/proxy.ts).
const upstream = new Pool(upstreamUrl, { connections: 128, pipelining: 1, keepAliveTimeout: 4_000 });

const DROPPED_REQUEST_HEADERS = new Set(['authorization', 'cookie', 'host', 'connection', 'keep-alive', 'content-length']);
const DROPPED_RESPONSE_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding']);

const server = http.createServer((req, res) => {
  if (req.url === '/health') {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    return;
  }
  void forward(req, res);
});

async function forward(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  try {
    await count(counterKey);
    const headers: Record<string, string | string[]> = {};
    for (const name in req.headers) {
      const value = req.headers[name];
      if (value !== undefined && !DROPPED_REQUEST_HEADERS.has(name)) headers[name] = value;
    }
    const answer = await upstream.request({ method: 'GET', path: req.url ?? '/', headers });
    const out: Record<string, string | string[]> = {};
    for (const name in answer.headers) {
      const value = answer.headers[name];
      if (value !== undefined && !DROPPED_RESPONSE_HEADERS.has(name)) out[name] = value;
    }
    res.writeHead(answer.statusCode, out);
    for await (const chunk of answer.body) res.write(chunk);
    res.end();
  } catch (error) {
    if (res.headersSent) res.destroy();
    else res.writeHead(502, { 'content-type': 'text/plain' }).end(error instanceof Error ? error.message : String(error));
  }
}

server.listen(port, '127.0.0.1');
process.once('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void Promise.allSettled([redis.quit(), upstream.close()]).then(() => process.exit(0));
});
