import { errors } from '@elastic/elasticsearch';
import { Router, type Request } from 'express';
import { z } from 'zod';
import { FragranceIdParams, SearchQuery, SimilarQuery } from '@fragrance/contracts';
import {
  AppError,
  InternalError,
  MethodNotAllowedError,
  NotFoundError,
  ServiceUnavailableError,
  ValidationError,
  type Logger,
} from '@fragrance/http';
import { InvalidCursorError, SearchInputError, type CatalogueRepository } from '@fragrance/search';
import { formatSearchOutcome, SEARCH_OUTCOME_HEADER } from '@fragrance/search-analytics';
import { ElasticsearchUnavailableError } from '../breaker.ts';
import type { Responder } from '../cache/responder.ts';
import { InvalidCursorProblem } from '../errors.ts';
import { searchHits } from '../metrics.ts';
import { parsePath, parseQuery } from '../params.ts';

const DEFAULT_SIMILAR = 10;
/** The detail endpoint takes no query parameters; any given is rejected like elsewhere. */
const NoQuery = z.strictObject({});
/** Retry-After of a 503 for a failure seen before the breaker opened (it may be a passing one). */
const OUTAGE_RETRY_AFTER_SECONDS = 1;

/** Turns an Elasticsearch failure into a problem a client can act on; never a bare 500. */
export function upstreamProblem(error: unknown, req: Request, logger: Logger): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof ElasticsearchUnavailableError) {
    return new ServiceUnavailableError('The catalogue is temporarily unavailable.', error, error.retryAfterSeconds);
  }
  if (error instanceof InvalidCursorError) return new InvalidCursorProblem(error.message);
  if (error instanceof SearchInputError) return new ValidationError([{ name: error.param, reason: error.message }]);
  if (error instanceof errors.ResponseError) {
    const type = (error.body as { error?: { type?: string } } | undefined)?.error?.type;
    if (error.statusCode === 404 && type === 'index_not_found_exception') {
      return new ServiceUnavailableError('The catalogue is not loaded yet; try again shortly.', error);
    }
    if (error.statusCode === 400) {
      // Parameters are validated before a query is built, so this is a bug, not bad input;
      // logged in full, shown without detail.
      (req.log ?? logger).error({ err: error, type }, 'Elasticsearch rejected a query');
      return new InternalError(undefined, error);
    }
    return new ServiceUnavailableError('The catalogue is temporarily unavailable.', error, OUTAGE_RETRY_AFTER_SECONDS);
  }
  if (error instanceof errors.ConnectionError || error instanceof errors.TimeoutError || error instanceof errors.NoLivingConnectionsError) {
    return new ServiceUnavailableError('The catalogue is temporarily unavailable.', error, OUTAGE_RETRY_AFTER_SECONDS);
  }
  return error instanceof Error ? new InternalError(undefined, error) : new ServiceUnavailableError('Unknown failure.');
}

/** GET /v1/fragrances, /v1/fragrances/{id}, /v1/fragrances/{id}/similar. */
export function fragranceRoutes(repository: CatalogueRepository, respond: Responder, logger: Logger): Router {
  const router = Router();

  router.get('/v1/fragrances', async (req, res) => {
    let params;
    try {
      params = parseQuery(req, SearchQuery);
    } catch (error) {
      // A cursor that is not even well-formed is answered like any other bad cursor, when it is
      // the only problem: the client's fix is the same (start again without one).
      const only = error instanceof ValidationError && error.invalidParams.every((p) => p.name === 'cursor');
      throw only ? new InvalidCursorProblem(error.invalidParams[0]?.reason ?? 'is not a cursor') : error;
    }
    try {
      await respond(req, res, 'search', params, async () => {
        const page = await repository.search(params);
        searchHits.observe(page.total);
        // For the gateway's search analytics (it removes the header): what a text search found.
        return params.query ? { body: page, headers: { [SEARCH_OUTCOME_HEADER]: formatSearchOutcome(page) } } : { body: page };
      });
    } catch (error) {
      throw upstreamProblem(error, req, logger);
    }
  });

  router.get('/v1/fragrances/:id', async (req, res) => {
    const { id } = parsePath(req.params, FragranceIdParams);
    parseQuery(req, NoQuery);
    let found;
    try {
      found = await respond(req, res, 'detail', { id: id.toLowerCase() }, async () => {
        const record = await repository.get(id.toLowerCase());
        return record && { body: record.fragrance, etag: record.etag };
      });
    } catch (error) {
      throw upstreamProblem(error, req, logger);
    }
    if (!found) throw new NotFoundError(`No fragrance has id ${id}.`);
  });

  router.get('/v1/fragrances/:id/similar', async (req, res) => {
    const { id } = parsePath(req.params, FragranceIdParams);
    const { limit = DEFAULT_SIMILAR, ...filters } = parseQuery(req, SimilarQuery);
    let found;
    try {
      found = await respond(req, res, 'similar', { id: id.toLowerCase(), limit, ...filters }, async () => {
        const similar = await repository.similar(id.toLowerCase(), limit, filters);
        return similar && { body: { data: similar, limit } };
      });
    } catch (error) {
      throw upstreamProblem(error, req, logger);
    }
    if (!found) throw new NotFoundError(`No fragrance has id ${id}.`);
  });

  // The data API is read-only: any other method on these paths is a 405, not a 404.
  router.all(['/v1/fragrances', '/v1/fragrances/:id', '/v1/fragrances/:id/similar'], (req) => {
    throw new MethodNotAllowedError(['GET', 'HEAD'], `${req.method} is not supported here; the API is read-only.`);
  });

  return router;
}
