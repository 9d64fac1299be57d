import type { Client } from '@elastic/elasticsearch';
import type { Logger } from '@fragrance/http';
import { aliasTargets, readCatalogueGeneration, type GenerationScope, type GenerationStore } from '@fragrance/search';
import { freshRead } from './fresh-read.ts';

/**
 * The catalogue's generation as seen now: the index the alias points at and the enrichment
 * generation the worker bumps after each batch it wrote (`@fragrance/search` generation.ts).
 * Both are read for every request (coalesced, see freshRead), so an alias swap or a bumped
 * generation is visible to the very next request. undefined when either cannot be read (no
 * alias yet, Redis or Elasticsearch away): the caller then answers without the cache.
 */
export function generationReader({
  elasticsearch,
  redis,
  scope,
  logger,
}: {
  elasticsearch: Client;
  redis: GenerationStore;
  scope: GenerationScope;
  logger: Logger;
}): () => Promise<string | undefined> {
  // One warning per outage, not one per request.
  let failing = false;
  return freshRead(async () => {
    try {
      const [indices, enrichment] = await Promise.all([aliasTargets(elasticsearch, scope.alias), readCatalogueGeneration(redis, scope)]);
      if (failing) logger.info('catalogue generation readable again; response cache back in use');
      failing = false;
      return indices.length === 0 ? undefined : `${indices.join(',')}#${enrichment}`;
    } catch (error) {
      if (!failing) logger.warn({ err: error }, 'cannot read the catalogue generation; answering without the response cache');
      failing = true;
      return undefined;
    }
  });
}
