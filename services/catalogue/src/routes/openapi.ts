import { Router } from 'express';
import { buildOpenApiDocument } from '@fragrance/contracts';

/** GET /v1/openapi.json: generated once from the contract schemas, public. */
export function openApiRoutes(publicBaseUrl: string): Router {
  const document = JSON.stringify(buildOpenApiDocument({ serverUrl: publicBaseUrl }));
  const router = Router();
  router.get('/v1/openapi.json', (_req, res) => {
    res.type('application/json').setHeader('Cache-Control', 'public, max-age=300');
    res.send(document);
  });
  return router;
}
