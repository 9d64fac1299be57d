// The catalogue's HTTP app in process for its tests (buildApp on a free loopback port), and the
// vitest fixtures that hand a test its Elasticsearch and the apps it starts.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { test } from 'vitest';
import { createLogger } from '@fragrance/http';
import { close, listen, testElasticsearch } from '@fragrance/testkit';
import { buildApp, type CatalogueDeps } from '../app.ts';
import { CatalogueConfig } from '../config.ts';

export interface CatalogueApp {
  /** http://127.0.0.1:<port> */
  url: string;
  server: Server;
  close: () => Promise<void>;
}

/** What a test may give buildApp besides the config and logger. */
export type CatalogueAppDeps = Omit<CatalogueDeps, 'config' | 'logger'>;

/**
 * Starts the catalogue app (buildApp) on a free loopback port, configured from `env` as main.ts
 * would be, with a fresh cursor secret unless `env` gives one.
 */
export async function startCatalogueApp(deps: CatalogueAppDeps, env: Record<string, string> = {}): Promise<CatalogueApp> {
  const config = CatalogueConfig.parse({ CURSOR_SECRET: randomBytes(32).toString('base64url'), ...env });
  const server = createServer(buildApp({ config, logger: createLogger('catalogue-test', 'silent'), ...deps }));
  return { url: await listen(server), server, close: () => close(server) };
}

/**
 * Vitest fixtures (`catalogueTest(name, async ({ es, startApp }) => …)`): `es`, the test file's
 * own prefix on the test Elasticsearch, removed after the file; `startApp`, which starts the app
 * on that Elasticsearch (or on `deps.elasticsearch`) and closes it after the test.
 */
export const catalogueTest = test
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from this pattern
  .extend('es', { scope: 'file' }, async ({}, { onCleanup }) => {
    const es = await testElasticsearch('catalogue');
    onCleanup(() => es.cleanup());
    return es;
  })
  .extend('startApp', async ({ es }, { onCleanup }) => {
    const apps: CatalogueApp[] = [];
    onCleanup(async () => {
      await Promise.all(apps.map((app) => app.close()));
    });
    return async (env: Record<string, string> = {}, deps: Partial<CatalogueAppDeps> = {}): Promise<CatalogueApp> => {
      const app = await startCatalogueApp({ elasticsearch: es.client, ...deps }, { ELASTICSEARCH_URL: es.url, ...env });
      apps.push(app);
      return app;
    };
  });
