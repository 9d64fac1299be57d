import { Router } from 'express';
import { z } from 'zod';
import { BrandSlugParams, BrandsQuery, SuggestQuery, TermsQuery } from '@fragrance/contracts';
import { MethodNotAllowedError, NotFoundError, type Logger } from '@fragrance/http';
import type { DiscoveryRepository, TermKind } from '@fragrance/search';
import { parsePath, parseQuery } from '../params.ts';
import { upstreamProblem } from './fragrances.ts';

const NoQuery = z.strictObject({});
const TERM_KINDS: readonly TermKind[] = ['notes', 'accords', 'perfumers'];

/** GET /v1/suggest, /v1/brands, /v1/brands/{slug}, /v1/notes, /v1/accords, /v1/perfumers. */
export function discoveryRoutes(repository: DiscoveryRepository, logger: Logger): Router {
  const router = Router();

  router.get('/v1/suggest', async (req, res) => {
    const params = parseQuery(req, SuggestQuery);
    try {
      res.json(await repository.suggest(params));
    } catch (error) {
      throw upstreamProblem(error, req, logger);
    }
  });

  router.get('/v1/brands', async (req, res) => {
    const params = parseQuery(req, BrandsQuery);
    try {
      res.json(await repository.brands(params));
    } catch (error) {
      throw upstreamProblem(error, req, logger);
    }
  });

  router.get('/v1/brands/:slug', async (req, res) => {
    const { slug } = parsePath(req.params, BrandSlugParams);
    parseQuery(req, NoQuery);
    let brand;
    try {
      brand = await repository.brand(slug);
    } catch (error) {
      throw upstreamProblem(error, req, logger);
    }
    if (!brand) throw new NotFoundError(`No brand has slug ${slug}.`);
    res.json(brand);
  });

  for (const kind of TERM_KINDS) {
    router.get(`/v1/${kind}`, async (req, res) => {
      const params = parseQuery(req, TermsQuery);
      try {
        res.json(await repository.terms(kind, params));
      } catch (error) {
        throw upstreamProblem(error, req, logger);
      }
    });
  }

  router.all(['/v1/suggest', '/v1/brands', '/v1/brands/:slug', ...TERM_KINDS.map((k) => `/v1/${k}`)], (req) => {
    throw new MethodNotAllowedError(['GET', 'HEAD'], `${req.method} is not supported here; the API is read-only.`);
  });
  return router;
}
