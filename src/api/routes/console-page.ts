import express from 'express';
import type { RequestHandler } from 'express';
import { packageFile } from '../../config/package-file';

/**
 * Everything the page may load or reach is this service: its own script, style and API. No inline
 * script or style (the token is typed into this page), no framing, no form posted anywhere.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * GET /console: the projections console, plain files of the `console` folder shipped beside
 * package.json (no build step). Public like /docs: the page holds no data; what it shows comes from
 * GET /internal/read-models, which asks for the operator token the page sends.
 */
export function consolePage(): RequestHandler {
  const folder = packageFile('console');
  if (!folder) throw new Error('the console folder is not shipped beside package.json');
  // No caching: a page from an older version would read answers of a newer one.
  const assets = express.static(folder, { index: 'index.html', redirect: true, maxAge: 0 });
  return (req, res, next) => {
    res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    res.setHeader('Referrer-Policy', 'no-referrer');
    assets(req, res, next);
  };
}
