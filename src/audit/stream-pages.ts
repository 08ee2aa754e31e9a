import { setImmediate as nextTurn } from 'node:timers/promises';
import type { EventStore, RecordedEvent } from '../ports/event-store';

/*
 * A stream read a page at a time, for the audit's reads of streams that grow without bound (the
 * directory's): what is held is one page, never the stream, and the process answers other
 * requests between pages (the embedded store reads synchronously).
 */

/** Events a page. */
export const STREAM_PAGE = 1000;

/** The events of `streamId` from revision `fromRevision` on, a page at a time. */
export async function* streamPages(
  store: EventStore,
  streamId: string,
  fromRevision = 0n,
  pageSize = STREAM_PAGE,
): AsyncGenerator<RecordedEvent[]> {
  let from = fromRevision;
  for (;;) {
    const page = await store.readStream(streamId, { fromRevision: from, maxCount: pageSize });
    const last = page.at(-1);
    if (last) yield page;
    if (!last || page.length < pageSize) return;
    from = last.revision + 1n;
    await nextTurn();
  }
}

/**
 * Where a read of `streamId` resumes after the log position `position`: the smallest revision
 * whose reading starts with an event past it, or undefined when no event of the stream is. A
 * stream's positions grow with its revisions, so a binary search over revisions finds it in a
 * few one-event reads however long the stream (a revision no longer stored, as where a stream's
 * oldest events expired, reads as the next one stored).
 */
export async function revisionAfter(
  store: EventStore,
  streamId: string,
  position: bigint,
): Promise<bigint | undefined> {
  const last = await store.readLastEvent(streamId);
  if (!last || last.position <= position) return undefined;
  let low = 0n;
  let high = last.revision;
  while (low < high) {
    const middle = (low + high) / 2n;
    const [first] = await store.readStream(streamId, { fromRevision: middle, maxCount: 1 });
    // Every revision from `middle` to `first` reads as `first`.
    if (first && first.position > position) high = middle;
    else low = (first?.revision ?? middle) + 1n;
  }
  return low;
}
