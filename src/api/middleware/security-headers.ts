import type { RequestHandler } from 'express';

/**
 * Headers every answer carries: no content sniffing anywhere, and nothing under /api or /internal
 * stored by a browser or a shared cache, since those answers depend on who asked.
 */
export const securityHeaders: RequestHandler = (req, res, next) => {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  if (req.path.startsWith('/api/') || req.path.startsWith('/internal/')) res.setHeader('Cache-Control', 'no-store');
  next();
};
