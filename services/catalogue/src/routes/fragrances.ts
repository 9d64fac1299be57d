import { Router } from 'express';
import { z } from 'zod';
import { FragranceIdParams, SearchQuery, SimilarQuery } from '@fragrance/contracts';
import { MethodNotAllowedError, NotFoundError, ValidationError } from '@fragrance/http';
import type { CatalogueRepository } from '@fragrance/search';
import { formatSearchOutcome, SEARCH_OUTCOME_HEADER } from '@fragrance/search-analytics';
import type { Responder } from '../cache/responder.ts';
import { InvalidCursorProblem } from '../errors.ts';
import { searchHits } from '../metrics.ts';
import { parsePath, parseQuery } from '../params.ts';

const DEFAULT_SIMILAR = 10;
/** The detail endpoint takes no query parameters; any given is rejected like elsewhere. */
const NoQuery = z.strictObject({});

/** GET /v1/fragrances, /v1/fragrances/{id}, /v1/fragrances/{id}/similar. */
export function fragranceRoutes(repository: CatalogueRepository, respond: Responder): Router {
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
    await respond(req, res, 'search', params, async () => {
      const page = await repository.search(params);
      searchHits.observe(page.total);
      // For the gateway's search analytics (it removes the header): what a text search found.
      return params.query ? { body: page, headers: { [SEARCH_OUTCOME_HEADER]: formatSearchOutcome(page) } } : { body: page };
    });
  });

  router.get('/v1/fragrances/:id', async (req, res) => {
    const { id } = parsePath(req.params, FragranceIdParams);
    parseQuery(req, NoQuery);
    const found = await respond(req, res, 'detail', { id: id.toLowerCase() }, async () => {
      const record = await repository.get(id.toLowerCase());
      return record && { body: record.fragrance, etag: record.etag };
    });
    if (!found) throw new NotFoundError(`No fragrance has id ${id}.`);
  });

  router.get('/v1/fragrances/:id/similar', async (req, res) => {
    const { id } = parsePath(req.params, FragranceIdParams);
    const { limit = DEFAULT_SIMILAR, ...filters } = parseQuery(req, SimilarQuery);
    const found = await respond(req, res, 'similar', { id: id.toLowerCase(), limit, ...filters }, async () => {
      const similar = await repository.similar(id.toLowerCase(), limit, filters);
      return similar && { body: { data: similar, limit } };
    });
    if (!found) throw new NotFoundError(`No fragrance has id ${id}.`);
  });

  // The data API is read-only: any other method on these paths is a 405, not a 404.
  router.all(['/v1/fragrances', '/v1/fragrances/:id', '/v1/fragrances/:id/similar'], (req) => {
    throw new MethodNotAllowedError(['GET', 'HEAD'], `${req.method} is not supported here; the API is read-only.`);
  });

  return router;
}
