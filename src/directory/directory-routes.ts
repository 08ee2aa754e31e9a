import type { Router } from 'express';
import { ingestDirectoryEvents } from './ingest-directory-events';
import { directoryBatchSchema } from './directory-events';
import { systemActor } from '../domain/event';
import type { AppContext } from '../app/app-context';
import { requireInternalToken } from '../api/middleware/internal-token';
import { readYourWrites } from '../api/read-your-writes';
import { routeGroup, routerOf } from '../api/route-declaration';
import { directoryFeedAnswerSchema } from '../api/response-schemas';

/** The platform's feed of people, communities, projects and circles (docs/api.md "Directory"). */
export const DIRECTORY_ROUTES = routeGroup<AppContext>({ tag: 'internal', access: 'internal' }, (directory) => [
  directory.post('/internal/directory/events', 'ingestDirectoryEvents', {
    summary: 'Directory feed: people, communities, projects and circles, one atomic batch',
    request: { body: directoryBatchSchema },
    answers: { 200: { description: 'Appended and projected', json: directoryFeedAnswerSchema } },
    errors: [400, 401, 413, 415],
    handle: (ctx) => async ({ body: batch, res }) => {
      const position = await ingestDirectoryEvents(ctx.eventStore, batch, {
        actor: systemActor,
        correlationId: res.locals.correlationId as string,
        at: ctx.clock().toISOString(),
      });
      await readYourWrites(ctx, position);
      return { accepted: batch.events.length, position: position.toString() };
    },
  }),
]);

export const directoryRoutes = (ctx: AppContext): Router =>
  routerOf(DIRECTORY_ROUTES, ctx, [requireInternalToken(ctx.secrets.directoryToken)]);
