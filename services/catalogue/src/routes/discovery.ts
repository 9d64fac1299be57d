import { Router } from 'express';
import { z } from 'zod';
import { BrandSlugParams, BrandsQuery, SuggestQuery, TermsQuery } from '@fragrance/contracts';
import { MethodNotAllowedError, NotFoundError } from '@fragrance/http';
import type { DiscoveryRepository, TermKind } from '@fragrance/search';
import { parsePath, parseQuery } from '../params.ts';

const NoQuery = z.strictObject({});
const TERM_KINDS: readonly TermKind[] = ['notes', 'accords', 'perfumers'];

/** GET /v1/suggest, /v1/brands, /v1/brands/{slug}, /v1/notes, /v1/accords, /v1/perfumers. */
export function discoveryRoutes(repository: DiscoveryRepository): Router {
  const router = Router();

  router.get('/v1/suggest', async (req, res) => {
    const params = parseQuery(req, SuggestQuery);
    res.json(await repository.suggest(params));
  });

  router.get('/v1/brands', async (req, res) => {
    const params = parseQuery(req, BrandsQuery);
    res.json(await repository.brands(params));
  });

  router.get('/v1/brands/:slug', async (req, res) => {
    const { slug } = parsePath(req.params, BrandSlugParams);
    parseQuery(req, NoQuery);
    const brand = await repository.brand(slug);
    if (!brand) throw new NotFoundError(`No brand has slug ${slug}.`);
    res.json(brand);
  });

  for (const kind of TERM_KINDS) {
    router.get(`/v1/${kind}`, async (req, res) => {
      const params = parseQuery(req, TermsQuery);
      res.json(await repository.terms(kind, params));
    });
  }

  router.all(['/v1/suggest', '/v1/brands', '/v1/brands/:slug', ...TERM_KINDS.map((k) => `/v1/${k}`)], (req) => {
    throw new MethodNotAllowedError(['GET', 'HEAD'], `${req.method} is not supported here; the API is read-only.`);
  });
  return router;
}
