import type { RequestHandler } from 'express';

/**
 * Headers every answer carries: no content sniffing anywhere, and nothing under /api or /internal
 * stored by a browser or a shared cache, since those answers depend on who asked.
 */
export const securityHeaders: RequestHandler = (req, res, next) => {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  // In any letter case: the routes answer /API/… as they answer /api/….
  if (CALLER_DEPENDENT.test(req.path)) res.setHeader('Cache-Control', 'no-store');
  next();
};

const CALLER_DEPENDENT = /^\/(?:api|internal)\//i;
