import type { Client } from '@elastic/elasticsearch';
import express, { type Express } from 'express';
import { notFoundHandler, problemHandler, requestLogger, type Logger } from '@fragrance/http';
import type { CatalogueConfig } from './config.ts';
import { healthRoutes } from './routes/health.ts';

export interface CatalogueDeps {
  config: CatalogueConfig;
  logger: Logger;
  elasticsearch: Client;
}

export function buildApp({ logger, elasticsearch }: CatalogueDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(requestLogger(logger));
  app.use(healthRoutes(elasticsearch));
  app.use(notFoundHandler);
  app.use(problemHandler);
  return app;
}
