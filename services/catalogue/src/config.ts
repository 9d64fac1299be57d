import { z } from 'zod';
import { host, httpUrl, logLevel, millis, parseConfig, port } from '@fragrance/config';

/** Every variable the catalogue service reads; documented in docs/configuration.md. */
export const CatalogueConfig = z.object({
  HOST: host(),
  PORT: port(8081),
  LOG_LEVEL: logLevel(),
  ELASTICSEARCH_URL: httpUrl().default('http://127.0.0.1:9200'),
  /** Alias searched and read; ingest swaps it between index versions. */
  CATALOGUE_ALIAS: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]{0,100}$/, { error: 'must be a lower-case index alias name' })
    .default('fragrances'),
  /** Longest wait for one Elasticsearch request. */
  ELASTICSEARCH_TIMEOUT_MS: millis(5_000),
  /** The public {base_url}, advertised in the OpenAPI document's `servers`. */
  PUBLIC_BASE_URL: httpUrl().default('http://127.0.0.1:8080/v1'),
});
export type CatalogueConfig = z.infer<typeof CatalogueConfig>;

export const loadConfig = (env: Readonly<Record<string, string | undefined>>): CatalogueConfig => parseConfig(CatalogueConfig, env);
