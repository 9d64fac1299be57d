// The services an MCP test needs as real processes (services never import each other): the
// catalogue over the test's Elasticsearch, the auth service, this MCP server and the gateway in
// front of them (the edge), each on a free loopback port, all under the test file's own Redis
// prefix; and the vitest fixtures that start them and stop them after the file. Embeddings stay
// off unless a test asks (startService's default): no test here embeds.
import { randomBytes } from 'node:crypto';
import { ingestCatalogue } from '@fragrance/search';
import { freePort, startService, testElasticsearch, type RunningService, type TestElasticsearch } from '@fragrance/testkit';
import { mcpTest, type McpApp, type McpAppOptions, type RedisUnderPrefix } from './app.ts';

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
  /** The catalogue's alias, its records already in (catalogueOf). */
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
function envOf(name: StackService, urls: StackUrls, redis: RedisUnderPrefix, options: StackOptions): Record<string, string> {
  const shared = { REDIS_URL: redis.url, REDIS_PREFIX: redis.prefix, JOBS_PREFIX: redis.prefix.replace(/:$/, '') };
  const own: Record<StackService, Record<string, string>> = {
    catalogue: {
      ...(options.alias ? { CATALOGUE_ALIAS: options.alias } : {}),
      CURSOR_SECRET: randomBytes(32).toString('base64url'),
      ...(options.embeddings ? { EMBEDDINGS_ENABLED: 'true' } : {}),
    },
    auth: { MCP_URL: urls.edge },
    mcp: { MCP_URL: urls.edge, AUTH_SERVICE_URL: urls.auth, CATALOGUE_SERVICE_URL: urls.catalogue },
    gateway: { MCP_URL: urls.edge, CATALOGUE_SERVICE_URL: urls.catalogue, AUTH_SERVICE_URL: urls.auth, MCP_SERVICE_URL: urls.mcp },
  };
  return { ...shared, ...own[name], ...options.env?.[name] };
}

/**
 * Starts `options.services` as child processes on `redis` (and `es` for the catalogue): the
 * catalogue, auth and mcp at once, then the gateway in front of them. Stops what started if one fails.
 */
export async function startStack(redis: RedisUnderPrefix, es: TestElasticsearch | undefined, options: StackOptions): Promise<Stack> {
  const wanted = new Set(options.services);
  if (options.inProcessMcp && wanted.has('mcp')) throw new Error('an MCP server in process and one as a process: start one of them');
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
    if (!wanted.has(name)) return;
    const env = envOf(name, urls, redis, options);
    if (name === 'catalogue') {
      if (!es) throw new Error('the catalogue needs the test Elasticsearch');
      env.ELASTICSEARCH_URL = es.url;
    }
    running.push(await startService(name, ports[name], env, options.bootMs));
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

/** Puts `records` into a fresh alias on `es` (no replicas: one node) and names the alias. */
export async function catalogueOf(es: TestElasticsearch, records: Iterable<unknown>): Promise<string> {
  const alias = es.index('fragrances');
  await ingestCatalogue({ client: es.client, alias, records, replicas: 0 });
  return alias;
}

/**
 * mcpTest plus `es`, the test file's own prefix on the test Elasticsearch (removed after the file),
 * and `startStack`, which starts a stack on the file's Redis and Elasticsearch and stops it after
 * the file. A test file keeps its stack in a file fixture of its own:
 * `mcpStackTest.extend('stack', { scope: 'file' }, async ({ es, startStack }) => startStack({ … }))`.
 */
export const mcpStackTest = mcpTest
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from this pattern
  .extend('es', { scope: 'file' }, async ({}, { onCleanup }) => {
    const es = await testElasticsearch('mcp');
    onCleanup(() => es.cleanup());
    return es;
  })
  .extend('startStack', { scope: 'file' }, async ({ redis, es }, { onCleanup }) => {
    const stacks: Stack[] = [];
    onCleanup(async () => {
      await Promise.all(stacks.map((stack) => stack.stop()));
    });
    return async (options: StackOptions): Promise<Stack> => {
      const stack = await startStack(redis, es, options);
      stacks.push(stack);
      return stack;
    };
  });

/** This server's app in process over a catalogue process, as far as an SDK client needs it. */
export interface McpOverCatalogue {
  /** The app's /mcp. */
  endpoint: URL;
  /** A token the app accepts for an hour. */
  token: string;
  /** The catalogue service the app calls. */
  catalogueUrl: string;
}

/**
 * The catalogue service (a process) over `records` in the test's Elasticsearch, and this server's
 * app in process calling it (the real checks and tools, without the edge or the auth service);
 * for a file fixture: `({ es, startStack, startApp }) => mcpOverCatalogue({ es, startStack, startApp }, records)`.
 */
export async function mcpOverCatalogue(
  fixtures: {
    es: TestElasticsearch;
    startStack: (options: StackOptions) => Promise<Stack>;
    startApp: (options: McpAppOptions) => Promise<McpApp>;
  },
  records: Iterable<unknown>,
): Promise<McpOverCatalogue> {
  const alias = await catalogueOf(fixtures.es, records);
  const { urls } = await fixtures.startStack({ services: ['catalogue'], alias });
  const app = await fixtures.startApp({
    catalogueUrl: urls.catalogue,
    catalogueTimeoutMs: 10_000,
    rateLimit: { perMinute: 60_000, burst: 10_000 },
  });
  return { endpoint: app.endpoint, token: await app.token({ expiresIn: 3600 }), catalogueUrl: urls.catalogue };
}
