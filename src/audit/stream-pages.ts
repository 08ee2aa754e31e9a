import { setImmediate as nextTurn } from 'node:timers/promises';
import type { EventStore, RecordedEvent } from '../ports/event-store';

/*
 * A stream read a page at a time, for the audit's reads of streams that grow without bound (the
 * directory's): what is held is one page, never the stream, and the process answers other
 * requests between pages (the embedded store reads synchronously).
 */

/** Events a page. */
export const STREAM_PAGE = 1000;

/**
 * The events of `streamId` from revision `fromRevision` on, read a page at a time: each call answers
 * the next `maxCount` of them ([] past the end).
 */
export function streamReader(
  store: EventStore,
  streamId: string,
  fromRevision = 0n,
): (maxCount: number) => Promise<RecordedEvent[]> {
  let from = fromRevision;
  return async (maxCount) => {
    const page = await store.readStream(streamId, { fromRevision: from, maxCount });
    const last = page.at(-1);
    if (last) from = last.revision + 1n;
    return page;
  };
}

/** The events of `streamId`, a page at a time, a turn of the event loop between pages. */
export async function* streamPages(
  store: EventStore,
  streamId: string,
  pageSize = STREAM_PAGE,
): AsyncGenerator<RecordedEvent[]> {
  const next = streamReader(store, streamId);
  for (;;) {
    const page = await next(pageSize);
    if (page.length > 0) yield page;
    if (page.length < pageSize) return;
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
