import express from 'express';
import type { RequestHandler } from 'express';
import { getAbsoluteFSPath } from 'swagger-ui-dist';

/**
 * GET /docs: Swagger UI from the swagger-ui-dist package's own files (no CDN), reading this
 * service's /openapi.json. A plain middleware, not a router: the page is not an API operation
 * and is not in the OpenAPI document. Public, like the document it renders.
 */
const INITIALIZER = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: new URL('../openapi.json', window.location.href).href,
    dom_id: '#swagger-ui',
    deepLinking: true,
    displayOperationId: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: 'StandaloneLayout',
  });
};
`;

export function docsPage(): RequestHandler {
  const assets = express.static(getAbsoluteFSPath(), { index: 'index.html', redirect: true, maxAge: '1h' });
  return (req, res, next) => {
    // The package's own initializer points at the Petstore demo; ours points at this service.
    if (req.path === '/swagger-initializer.js') {
      res.type('application/javascript').send(INITIALIZER);
      return;
    }
    assets(req, res, next);
  };
}
