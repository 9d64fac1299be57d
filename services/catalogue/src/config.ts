import { z } from 'zod';
import { host, httpUrl, logLevel, parseConfig, port } from '@fragrance/config';

/** Every variable the catalogue service reads; documented in docs/configuration.md. */
export const CatalogueConfig = z.object({
  HOST: host(),
  PORT: port(8081),
  LOG_LEVEL: logLevel(),
  ELASTICSEARCH_URL: httpUrl().default('http://127.0.0.1:9200'),
});
export type CatalogueConfig = z.infer<typeof CatalogueConfig>;

export const loadConfig = (env: Readonly<Record<string, string | undefined>>): CatalogueConfig =>
  parseConfig(CatalogueConfig, env);
