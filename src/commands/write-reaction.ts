import type { EventMetadata } from '../domain/event';
import type { Write } from '../ports/event-store';

/**
 * What the service does in answer to a write, before the write is answered: given where the write
 * landed (the read models already show it) and the stamp of the request that made it, it may run
 * commands of its own; it answers the position of its last append, if any, so that the request's
 * answer waits for that too.
 */
export type WriteReaction = (write: Write, stamp: EventMetadata) => Promise<bigint | undefined>;
