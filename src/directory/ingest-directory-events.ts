import type { DirectoryBatch } from './directory-events';
import { DIRECTORY_STREAM } from './directory-events';
import type { EventMetadata } from '../domain/event';
import type { EventStore } from '../ports/event-store';
import { claimedAppend } from '../commands/idempotent-attempt';

/**
 * A validated batch of directory events becomes one atomic append: all of it is stored, in
 * order, or none. The directory stream takes appends from any writer ('any'): the platform is
 * the source of truth and each upsert replaces the whole record.
 */
export async function ingestDirectoryEvents(
  store: EventStore,
  batch: DirectoryBatch,
  metadata: EventMetadata,
): Promise<bigint> {
  const events = batch.events.map((e) => ({ type: e.type, data: e.data, metadata }));
  // Sent with an Idempotency-Key: the append carries the claim, so the store records the key with it.
  const claimed = claimedAppend();
  const result = await (claimed
    ? store.appendToStream(DIRECTORY_STREAM, events, 'any', claimed)
    : store.appendToStream(DIRECTORY_STREAM, events, 'any'));
  return result.position;
}
