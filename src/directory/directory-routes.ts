import { ingestDirectoryEvents } from './ingest-directory-events';
import { directoryBatchSchema } from './directory-events';
import { systemActor } from '../domain/event';
import type { EventStore } from '../ports/event-store';
import type { Settle } from '../api/route-declaration';
import { routeGroup, written } from '../api/route-declaration';
import { directoryFeedAnswerSchema } from '../api/response-schemas';

/** The platform's feed of people, communities, projects and circles (docs/api.md "Directory"). */
/** What the feed writes through. */
export type DirectoryRouteDeps = {
  readonly eventStore: EventStore;
  readonly clock: () => Date;
  readonly settle: Settle;
};

export const DIRECTORY_ROUTES = routeGroup<DirectoryRouteDeps>(
  { tag: 'internal', access: 'internal', settle: (ctx) => ctx.settle },
  (directory) => [
    directory.post('/internal/directory/events', 'ingestDirectoryEvents', {
      summary: 'Directory feed: people, communities, projects and circles, one atomic batch',
      request: { body: directoryBatchSchema },
      answers: { 200: { description: 'Appended and projected', json: directoryFeedAnswerSchema } },
      errors: [400, 401, 413, 415],
      handle:
        (ctx) =>
        async ({ body: batch, correlationId }) => {
          const position = await ingestDirectoryEvents(ctx.eventStore, batch, {
            actor: systemActor,
            correlationId,
            at: ctx.clock().toISOString(),
          });
          return written(position, () => ({ accepted: batch.events.length, position: position.toString() }));
        },
    }),
  ],
);
