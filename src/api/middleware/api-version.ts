import type { RequestHandler } from 'express';
import { API_VERSION, API_VERSION_HEADER, apiVersionRefusal } from '../api-version';
import { sendProblem } from '../problem';

/**
 * Every answer says which API version served it, set before anything else runs so that 404s,
 * 405s, problems and the docs page carry it too.
 */
export const answerApiVersion: RequestHandler = (_req, res, next) => {
  res.setHeader(API_VERSION_HEADER, API_VERSION);
  next();
};

/**
 * A request naming a version this service does not serve gets a 400 naming the header and the
 * supported versions, before any credential is asked for. Runs after CORS (src/api/middleware/
 * http-semantics.ts), so a browser can read the refusal. An OPTIONS and a 405 are answered
 * before it: a preflight carries only the names of the headers the real request will send, and
 * the methods a path takes are the same whatever the version.
 */
export const acceptApiVersion: RequestHandler = (req, res, next) => {
  const refusal = apiVersionRefusal(req.header(API_VERSION_HEADER));
  if (refusal === undefined) return next();
  sendProblem(res, 'validation', refusal, [{ field: API_VERSION_HEADER, message: refusal }]);
};
