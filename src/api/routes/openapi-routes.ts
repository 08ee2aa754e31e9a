import { routeGroup } from '../route-declaration';

/** The document is handed in by the app: it is built from every declaration, this one included. */
type OpenApiRouteDeps = { readonly document: () => object };

/** GET /openapi.json: the OpenAPI 3.1 document of this service. Public, like /health. */
export const OPENAPI_ROUTES = routeGroup<OpenApiRouteDeps>({ tag: 'health', access: 'public' }, (openApi) => [
  openApi.get('/openapi.json', 'getOpenApiDocument', {
    summary: 'This OpenAPI document',
    answers: {
      200: {
        description: 'The OpenAPI 3.1 document',
        content: {
          'application/json': {
            schema: {
              type: 'object',
              description: 'This document: OpenAPI 3.1, generated from the zod schemas that validate the requests',
              example: { openapi: '3.1.0', info: { title: 'project-resources-service', version: '0.1.0' }, paths: {} },
            },
          },
        },
      },
    },
    errors: [],
    handle:
      ({ document }) =>
      ({ res }) => {
        res.json(document());
      },
  }),
]);
