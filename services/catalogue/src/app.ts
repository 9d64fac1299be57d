import type { Client } from '@elastic/elasticsearch';
import express, { type Express } from 'express';
import { notFoundHandler, problemHandler, requestLogger, type Logger } from '@fragrance/http';
import { httpMetrics } from '@fragrance/metrics';
import { createCatalogueRepository } from '@fragrance/search';
import { traceContext } from '@fragrance/tracing';
import type { CatalogueConfig } from './config.ts';
import { fragranceRoutes } from './routes/fragrances.ts';
import { healthRoutes } from './routes/health.ts';
import { openApiRoutes } from './routes/openapi.ts';

export interface CatalogueDeps {
  config: CatalogueConfig;
  logger: Logger;
  elasticsearch: Client;
}

export function buildApp({ config, logger, elasticsearch }: CatalogueDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  // ETags are computed from the index version of a record, not from the body.
  app.set('etag', false);
  app.use(traceContext(), httpMetrics());
  app.use(requestLogger(logger));
  app.use(healthRoutes(elasticsearch));
  app.use(openApiRoutes(config.PUBLIC_BASE_URL));
  const repository = createCatalogueRepository({
    client: elasticsearch,
    alias: config.CATALOGUE_ALIAS,
    cursorKeys: { current: config.CURSOR_SECRET, previous: config.CURSOR_SECRET_PREVIOUS },
  });
  app.use(fragranceRoutes(repository, logger));
  app.use(notFoundHandler);
  app.use(problemHandler);
  return app;
}
