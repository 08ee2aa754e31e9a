import express from 'express';
import type { RequestHandler } from 'express';
import path from 'node:path';

/**
 * GET /docs: Swagger UI from the swagger-ui-dist package's own files (no CDN), reading this
 * service's /openapi.json. A plain middleware, not a router: the page is not an API operation
 * and is not in the OpenAPI document. Public, like the document it renders.
 */
const INITIALIZER = `// The operator token (X-Directory-Token) is not the users' business: the Authorize dialog
// offers the users' schemes only; the operator routes still say which scheme they need.
const UsersSchemesOnly = function () {
  return {
    statePlugins: {
      spec: {
        wrapSelectors: {
          securityDefinitions: function (original) {
            return function () {
              const schemes = original.apply(null, arguments);
              return schemes && schemes.delete ? schemes.delete('directoryToken') : schemes;
            };
          },
        },
      },
    },
  };
};
window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: new URL('../openapi.json', window.location.href).href,
    dom_id: '#swagger-ui',
    deepLinking: true,
    displayOperationId: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl, UsersSchemesOnly],
    layout: 'StandaloneLayout',
  });
};
`;

/**
 * The package's folder, found without loading its index: that index loads the 1.7 MB browser
 * bundle into the server (40 MB of memory, 0.25 s of start-up) only to export its path.
 */
const swaggerUiFolder = () => path.dirname(require.resolve('swagger-ui-dist/package.json'));

/** The files the page loads (index.html's own list): the rest of the package is not served. */
const PAGE_FILES = new Set([
  '/',
  '/index.html',
  '/index.css',
  '/swagger-ui.css',
  '/swagger-ui-bundle.js',
  '/swagger-ui-standalone-preset.js',
  '/favicon-16x16.png',
  '/favicon-32x32.png',
]);

/**
 * The page's own scripts and this service alone: users paste a bearer token or an API key into its
 * Authorize dialog. Swagger UI sets style attributes and draws its icons from data: URLs.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export function docsPage(): RequestHandler {
  const assets = express.static(swaggerUiFolder(), { index: 'index.html', redirect: true, maxAge: '1h' });
  return (req, res, next) => {
    res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    res.setHeader('Referrer-Policy', 'no-referrer');
    // The package's own initializer points at the Petstore demo; ours points at this service.
    if (req.path === '/swagger-initializer.js') {
      res.type('application/javascript').send(INITIALIZER);
      return;
    }
    if (!PAGE_FILES.has(req.path)) return next();
    assets(req, res, next);
  };
}
