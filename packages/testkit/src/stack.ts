// The services a test needs as real processes (services never import each other): the catalogue
// over the test's Elasticsearch alias, the auth service, the MCP server and the gateway in front of
// them (the edge), each on a free loopback port, all under the test's own Redis prefix. Embeddings
// stay off unless a test asks (startService's default). Putting records in the alias and creating
// API keys stays with the test (the packages that do it test themselves with this kit).
import { randomBytes } from 'node:crypto';
import { freePort, startService, type RunningService } from './processes.ts';

export type StackService = 'catalogue' | 'auth' | 'mcp' | 'gateway';

/** Where each part of a stack answers; `mcp` may be an app in the test's own process. */
export interface StackUrls {
  /** The gateway's address: what clients reach (MCP_URL, the OAuth issuer). */
  edge: string;
  catalogue: string;
  auth: string;
  mcp: string;
}

export interface StackOptions {
  /** The processes to start, in any order (the gateway starts last, once the others answer). */
  services: StackService[];
  /** The test's Redis: every service keeps its keys (and the gateway its API keys) under `prefix`. */
  redis: { url: string; prefix: string };
  /** The test's Elasticsearch, for the catalogue. */
  elasticsearchUrl?: string;
  /** The catalogue's alias, its records already in. */
  alias?: string;
  /** Variables for one service over the stack's own (its address, Redis, prefixes, the others' URLs). */
  env?: Partial<Record<StackService, Record<string, string>>>;
  /**
   * The MCP server the gateway routes /mcp to, when it is not a process of the stack: an app the
   * test starts in its own process from the stack's addresses (its JWKS, catalogue, edge).
   */
  inProcessMcp?: (urls: StackUrls) => Promise<string>;
  /** How long a service may take to answer /health (busy machines, Chromium beside). */
  bootMs?: number;
  /** Load the embedding model in the catalogue (semantic search); off by default. */
  embeddings?: boolean;
}

export interface Stack {
  urls: StackUrls;
  /** The running process of `name` (its output, for log assertions). */
  service(name: StackService): RunningService;
  stop(): Promise<void>;
}

/** Each service's variables: its dependencies' URLs and the test's Redis prefix. */
function envOf(name: StackService, urls: StackUrls, options: StackOptions): Record<string, string> {
  const { redis } = options;
  const wanted = new Set(options.services);
  const shared = { REDIS_URL: redis.url, REDIS_PREFIX: redis.prefix, JOBS_PREFIX: redis.prefix.replace(/:$/, '') };
  const own: Record<StackService, Record<string, string>> = {
    catalogue: {
      ...(options.elasticsearchUrl ? { ELASTICSEARCH_URL: options.elasticsearchUrl } : {}),
      ...(options.alias ? { CATALOGUE_ALIAS: options.alias } : {}),
      // A fresh signing key per stack: cursors from another run are foreign, as they should be.
      CURSOR_SECRET: randomBytes(32).toString('base64url'),
      ...(options.embeddings ? { EMBEDDINGS_ENABLED: 'true' } : {}),
    },
    auth: { MCP_URL: urls.edge },
    mcp: { MCP_URL: urls.edge, AUTH_SERVICE_URL: urls.auth, CATALOGUE_SERVICE_URL: urls.catalogue },
    // Only the upstreams the stack has: the gateway reports a named one that is down as degraded.
    gateway: {
      MCP_URL: urls.edge,
      CATALOGUE_SERVICE_URL: urls.catalogue,
      ...(wanted.has('auth') ? { AUTH_SERVICE_URL: urls.auth } : {}),
      ...(wanted.has('mcp') || options.inProcessMcp ? { MCP_SERVICE_URL: urls.mcp } : {}),
    },
  };
  return { ...shared, ...own[name], ...options.env?.[name] };
}

/**
 * Starts `options.services` as child processes: the catalogue, auth and mcp at once, then the
 * gateway in front of them. Stops what started if one fails.
 */
export async function startStack(options: StackOptions): Promise<Stack> {
  const wanted = new Set(options.services);
  if (options.inProcessMcp && wanted.has('mcp')) throw new Error('an MCP server in process and one as a process: start one of them');
  if (wanted.has('catalogue') && !options.elasticsearchUrl) throw new Error('the catalogue needs the test Elasticsearch');
  const [edgePort, cataloguePort, authPort, mcpPort] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  const loopback = (port: number) => `http://127.0.0.1:${port}`;
  const urls: StackUrls = {
    edge: loopback(edgePort),
    catalogue: loopback(cataloguePort),
    auth: loopback(authPort),
    mcp: loopback(mcpPort),
  };
  if (options.inProcessMcp) urls.mcp = await options.inProcessMcp(urls);
  const ports: Record<StackService, number> = { catalogue: cataloguePort, auth: authPort, mcp: mcpPort, gateway: edgePort };
  const running: RunningService[] = [];
  const stop = async () => {
    await Promise.all(running.map((s) => s.stop()));
  };
  const start = async (name: StackService) => {
    if (wanted.has(name)) running.push(await startService(name, ports[name], envOf(name, urls, options), options.bootMs));
  };
  try {
    // allSettled: every process that started is known to stop() even when another one failed.
    const first = await Promise.allSettled((['catalogue', 'auth', 'mcp'] as const).map(start));
    const failed = first.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    await start('gateway');
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    urls,
    service: (name) => {
      const found = running.find((s) => s.name === name);
      if (!found) throw new Error(`${name} is not a process of this stack`);
      return found;
    },
    stop,
  };
}
