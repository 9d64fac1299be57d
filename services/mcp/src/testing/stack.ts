// The services an MCP test needs as real processes come from the testkit's startStack, under
// the test file's own Redis prefix and Elasticsearch; embeddings stay off unless a test asks.
import { ingestCatalogue } from '@fragrance/search';
import {
  startStack,
  testElasticsearch,
  type Stack,
  type StackOptions as TestkitStackOptions,
  type StackService,
  type TestElasticsearch,
} from '@fragrance/testkit';
import { mcpTest, type McpApp, type McpAppOptions } from './app.ts';

export type { Stack, StackService };

/** What a test chooses; the Redis prefix and Elasticsearch are the file's. */
export type StackOptions = Omit<TestkitStackOptions, 'redis' | 'elasticsearchUrl'>;

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
      const stack = await startStack({ ...options, redis: { url: redis.url, prefix: redis.prefix }, elasticsearchUrl: es.url });
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
