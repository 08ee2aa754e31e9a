import { ingestDirectoryEvents } from './ingest-directory-events';
import type { DirectoryBatch } from './directory-events';
import { directoryBatchSchema } from './directory-events';
import type { IdempotencyKeys } from '../ports/idempotency-keys';
import { systemActor } from '../domain/event';
import { AppendTooLargeError, type EventStore } from '../ports/event-store';
import { DomainError } from '../domain/errors';
import type { Settle } from '../api/route-declaration';
import { routeGroup, written } from '../api/route-declaration';
import { directoryFeedAnswerSchema } from '../api/response-schemas';

/** The platform's feed of people, communities, projects and circles (docs/api.md "Directory"). */
/** What the feed writes through. */
export type DirectoryRouteDeps = {
  readonly eventStore: EventStore;
  readonly idempotencyKeys: IdempotencyKeys;
  readonly clock: () => Date;
  readonly settle: Settle;
};

/** The feed's answer to a batch stored at `position`: a batch is one append, so all of it. */
const accepted = (batch: DirectoryBatch, position: bigint) =>
  written(position, () => ({ accepted: batch.events.length, position: position.toString() }));

export const DIRECTORY_ROUTES = routeGroup<DirectoryRouteDeps>(
  { tag: 'internal', access: 'internal', settle: (ctx) => ctx.settle },
  (directory) => [
    directory.post('/internal/directory/events', 'ingestDirectoryEvents', {
      writes: true,
      summary: 'Directory feed: people, communities, projects and circles, one atomic batch',
      request: { body: directoryBatchSchema },
      answers: { 200: { description: 'Appended and projected', json: directoryFeedAnswerSchema } },
      errors: [400, 401, 409, 413, 415, 422],
      // A retried batch with its Idempotency-Key is stored once: the key is recorded in the append's transaction.
      idempotent: {
        store: (ctx) => ctx,
        resume:
          () =>
          async (write, { body }) =>
            accepted(body, write.position),
      },
      handle:
        (ctx) =>
        async ({ body: batch, correlationId }) => {
          const position = await ingestDirectoryEvents(ctx.eventStore, batch, {
            actor: systemActor,
            correlationId,
            at: ctx.clock().toISOString(),
          }).catch((error: unknown) => {
            // One batch is one append: over the port's MAX_APPEND_BYTES it is refused whole, on every store.
            if (!(error instanceof AppendTooLargeError)) throw error;
            const message = `the batch would store ${error.bytes} bytes, over the limit of ${error.maxBytes}: split it`;
            throw new DomainError('payload_too_large', message, [{ field: 'events', message }]);
          });
          return accepted(batch, position);
        },
    }),
  ],
);
