import { Router } from 'express';
import { openApiDocument } from '../openapi';

/** GET /openapi.json: the OpenAPI 3.1 document of this service. Public, like /health. */
export function openApiRoutes(): Router {
  const router = Router();
  router.get('/openapi.json', (_req, res) => {
    res.json(openApiDocument());
  });
  return router;
}
