import type { Client } from '@elastic/elasticsearch';
import type { Express } from 'express';
import { Lifecycle, probeRoutes, serviceApp, type Logger } from '@fragrance/http';
import { createResponseCache, readCatalogueGeneration, type GenerationStore } from '@fragrance/response-cache';
import { createCatalogueRepository, createDiscoveryRepository, type QueryEmbedder } from '@fragrance/search';
import { generationSource, type GenerationSubscriber } from './cache/generation.ts';
import { createResponder, type ResponderCache } from './cache/responder.ts';
import type { CatalogueConfig } from './config.ts';
import { discoveryRoutes } from './routes/discovery.ts';
import { exportRoutes } from './routes/export.ts';
import { fragranceRoutes } from './routes/fragrances.ts';
import { observeResponseCache } from './metrics.ts';
import { elasticsearchCheck, healthRoutes } from './routes/health.ts';
import { openApiRoutes } from './routes/openapi.ts';
import { upstreamProblems } from './upstream-problem.ts';

export interface CatalogueDeps {
  config: CatalogueConfig;
  logger: Logger;
  elasticsearch: Client;
  /** Draining state for /health/ready (main.ts shares it with serve()); a fresh one when absent. */
  lifecycle?: Lifecycle;
  /**
   * Where the worker records the enrichment generation. Without it (or with
   * RESPONSE_CACHE_MAX_BYTES=0) there is no response cache: every answer is computed.
   */
  redis?: GenerationStore;
  /** Embeds queries for search_mode semantic and hybrid (main.ts loads the model); without it searches are lexical. */
  embedder?: QueryEmbedder | undefined;
  /**
   * A second Redis connection for the generation's change messages: with it a cache hit needs no
   * round trip (the generation is held in process); without it the generation is read per request.
   */
  subscriber?: GenerationSubscriber;
}

export function buildApp(deps: CatalogueDeps): Express {
  const { config, logger, elasticsearch, redis, subscriber, embedder, lifecycle = new Lifecycle() } = deps;
  return serviceApp({ logger }, (app) => {
    // ETags are computed from the index version of a record, not from the body.
    app.set('etag', false);
    const cache =
      redis && config.RESPONSE_CACHE_MAX_BYTES > 0 ? responderCache(config, elasticsearch, redis, subscriber, logger) : undefined;
    app.use(healthRoutes(elasticsearch));
    const searchable = elasticsearchCheck(elasticsearch, config.CATALOGUE_ALIAS);
    app.use(
      probeRoutes({ lifecycle, required: { elasticsearch: cache ? orServingStale(searchable, cache) : searchable }, timeoutMs: 1_000 }),
    );
    app.use(openApiRoutes(config.PUBLIC_BASE_URL));
    const repository = createCatalogueRepository({
      client: elasticsearch,
      alias: config.CATALOGUE_ALIAS,
      cursorKeys: { current: config.CURSOR_SECRET, previous: config.CURSOR_SECRET_PREVIOUS },
      embedder,
    });
    // Before the detail route, which would read `export` as an id.
    app.use(exportRoutes(elasticsearch, config.CATALOGUE_ALIAS, logger));
    app.use(fragranceRoutes(repository, createResponder(cache)));
    app.use(discoveryRoutes(createDiscoveryRepository({ client: elasticsearch, alias: config.CATALOGUE_ALIAS })));
    app.use(upstreamProblems(logger));
  });
}

/** The response cache, its generation and its stale-if-error window. */
function responderCache(
  config: CatalogueConfig,
  elasticsearch: Client,
  redis: GenerationStore,
  subscriber: GenerationSubscriber | undefined,
  logger: Logger,
): ResponderCache {
  const responses = createResponseCache({ maxBytes: config.RESPONSE_CACHE_MAX_BYTES });
  observeResponseCache(responses);
  const scope = { prefix: config.JOBS_PREFIX, alias: config.CATALOGUE_ALIAS };
  const generation = generationSource({
    elasticsearch,
    redis,
    ...(subscriber ? { subscriber } : {}),
    scope,
    logger,
    checkMs: config.RESPONSE_CACHE_GENERATION_CHECK_MS,
  });
  return {
    responses,
    generation: generation.current,
    lastKnown: generation.lastKnown,
    counter: () => readCatalogueGeneration(redis, scope),
    scope,
    staleIfErrorMs: config.RESPONSE_CACHE_STALE_IF_ERROR_SECONDS * 1_000,
  };
}

/**
 * Readiness while Elasticsearch fails: an instance that can still answer from its cache
 * (stale-if-error, within the window since the generation was last confirmed) stays in the load
 * balancer; when Elasticsearch is down every instance is in the same state, and taking them all
 * out would turn cached answers into 503s from the balancer.
 */
function orServingStale(check: () => Promise<void>, cache: ResponderCache): () => Promise<void> {
  return async () => {
    try {
      await check();
    } catch (error) {
      const known = cache.lastKnown();
      if (cache.staleIfErrorMs > 0 && cache.responses.entries > 0 && known && Date.now() - known.at <= cache.staleIfErrorMs) return;
      throw error;
    }
  };
}
