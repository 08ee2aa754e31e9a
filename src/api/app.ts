import express from 'express';
import type { AppContext } from './app-context';
import { authenticate } from './middleware/authenticate';
import { errorHandler, routeNotFound } from './middleware/error-handler';
import { requestLog } from './middleware/request-log';
import { applicationRoutes } from './routes/application-routes';
import { directoryRoutes } from './routes/directory-routes';
import { fileRoutes } from './routes/file-routes';
import { healthRoutes } from './routes/health-routes';
import { openApiRoutes } from './routes/openapi-routes';
import { operatorRoutes } from './routes/operator-routes';
import { privacyRoutes } from './routes/privacy-routes';
import { resourceRoutes } from './routes/resource-routes';
import { userRoutes } from './routes/user-routes';

/** JSON bodies above this are refused with 413 before they are parsed. */
export const JSON_BODY_LIMIT = '1mb';

export function buildApp(ctx: AppContext): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  app.use(requestLog(ctx.logger, ctx.metrics));
  app.use(express.json({ limit: JSON_BODY_LIMIT, strict: false }));

  app.use(healthRoutes(ctx));
  app.use(openApiRoutes());
  app.use(directoryRoutes(ctx));
  app.use(operatorRoutes(ctx));

  // Every /api route below requires a credential.
  app.use('/api', authenticate({ sessions: ctx.sessions, directory: ctx.directory }));
  app.use(userRoutes());
  app.use(applicationRoutes(ctx));
  app.use(resourceRoutes(ctx));
  app.use(privacyRoutes(ctx));
  app.use(fileRoutes(ctx));

  app.use(routeNotFound);
  app.use(errorHandler(ctx.logger));
  return app;
}
