import type { AccessReview, PersonAccess } from './access-review';
import { reviewAccess, reviewPersonAccess } from './access-review';
import type { AuditFilter } from './audit-log';
import { matchesFilter } from './audit-log';
import type { HistoryStep } from './resource-history';
import { resourceHistory } from './resource-history';
import { DIRECTORY_STREAM } from '../directory/directory-events';
import { directoryFold, type DirectoryState } from '../directory/directory-state';
import { RESOURCE_EVENT_TYPES, resourceStreamId } from '../resources/resource-events';
import { evolve, initialState } from '../resources/resource-evolve';
import { foldResource } from '../resources/resource-evolve';
import type { ResourceState } from '../resources/resource';
import { isResourceEvent } from '../resources/resource-events';
import type { EventStore, RecordedEvent } from '../ports/event-store';
import { revisionAfter, streamPages, streamReader } from './stream-pages';

/**
 * The audit API's reads, straight from the event store (the log is the audit trail; no read
 * model stands between an auditor and what was recorded). Shared by the HTTP routes and the CLI.
 */

export const AUDIT_PAGE_MAX = 1000;
/**
 * Events examined per page at most: a selective filter answers a short (even empty) page with a cursor rather
 * than scanning the whole log in one request.
 */
export const AUDIT_SCAN_MAX = 20_000;
const BATCH = 1000;

export type AuditPage = {
  readonly items: RecordedEvent[];
  /**
   * Position of the last event examined: resume after it. Undefined when nothing was examined and no cursor
   * was given.
   */
  readonly lastSeen: bigint | undefined;
  /** More matching events may follow; false once the end of the log (as of this read) was reached. */
  readonly hasMore: boolean;
};

export async function readAuditPage(
  store: EventStore,
  filter: AuditFilter,
  after: bigint | undefined,
  limit: number,
  scanMax = AUDIT_SCAN_MAX,
): Promise<AuditPage> {
  const read = await batchesAfter(store, filter.stream, after);
  if (!read) return { items: [], lastSeen: after, hasMore: false };
  const items: RecordedEvent[] = [];
  let lastSeen = after;
  let scanned = 0;
  for (;;) {
    const want = Math.min(BATCH, scanMax - scanned);
    const batch = await read(want);
    for (const [i, e] of batch.entries()) {
      lastSeen = e.position;
      scanned++;
      if (!matchesFilter(e, filter)) continue;
      items.push(e);
      if (items.length === limit) {
        const more = batch.slice(i + 1).some((next) => matchesFilter(next, filter)) || batch.length === want;
        return { items, lastSeen, hasMore: more };
      }
    }
    if (batch.length < want) return { items, lastSeen, hasMore: false };
    if (scanned >= scanMax) return { items, lastSeen, hasMore: true };
  }
}

/**
 * The next `want` events after `after`, batch after batch: of the log, or of one stream (read by
 * revision from where `after` falls in it). Undefined when the stream has nothing after it.
 */
async function batchesAfter(
  store: EventStore,
  stream: string | undefined,
  after: bigint | undefined,
): Promise<((want: number) => Promise<RecordedEvent[]>) | undefined> {
  if (stream === undefined) {
    let from = after;
    return async (want) => {
      const batch = await store.readAll(from, want);
      from = batch.at(-1)?.position ?? from;
      return batch;
    };
  }
  const revision = after === undefined ? 0n : await revisionAfter(store, stream, after);
  return revision === undefined ? undefined : streamReader(store, stream, revision);
}

/** Every step of one resource's stream; null when the resource never existed. */
export async function readResourceHistory(store: EventStore, resourceId: number): Promise<HistoryStep[] | null> {
  const events = await store.readStream(resourceStreamId(resourceId));
  return events.length === 0 ? null : resourceHistory(events);
}

const upTo = (at: number) => (e: RecordedEvent) => Date.parse(e.metadata.at) <= at;

/**
 * Who could see the resource at `at`: its stream and the directory stream, each folded up to
 * that moment (by the time recorded in every event's metadata). Null when it never existed.
 */
export async function reviewAccessAt(store: EventStore, resourceId: number, at: Date): Promise<AccessReview | null> {
  const resourceEvents = await store.readStream(resourceStreamId(resourceId));
  if (resourceEvents.length === 0) return null;
  const until = upTo(at.getTime());
  const [then] = await directoriesAt(store, [at]);
  return reviewAccess(foldResource(resourceEvents.filter(until)), then);
}

/**
 * The directory as it stood at each of `ats` (undefined: as it stands), folded from its stream in
 * one pass a page at a time: the stream grows with every change of the directory, and is never
 * held whole.
 */
export async function directoriesAt<const A extends readonly (Date | undefined)[]>(
  store: EventStore,
  ats: A,
): Promise<{ -readonly [K in keyof A]: DirectoryState }> {
  const folds = ats.map((at) => ({ fold: directoryFold(), keeps: at && upTo(at.getTime()) }));
  for await (const page of streamPages(store, DIRECTORY_STREAM)) {
    for (const { fold, keeps } of folds) fold.add(keeps ? page.filter(keeps) : page);
  }
  return folds.map(({ fold }) => fold.state()) as { -readonly [K in keyof A]: DirectoryState };
}

const RESOURCE_TYPES: ReadonlySet<string> = new Set(RESOURCE_EVENT_TYPES);

/**
 * What one person could see at `at`: every resource stream folded up to that moment (one pass
 * over the log's resource events, filtered by the store where it can) and the directory as it
 * stood then. Null when the directory never knew the user (a mistyped id, not "nothing").
 */
export async function reviewPersonAccessAt(store: EventStore, userId: number, at: Date): Promise<PersonAccess | null> {
  const until = upTo(at.getTime());
  const [now, then] = await directoriesAt(store, [undefined, at]);
  if (!now.users.has(userId)) return null;
  const states = new Map<string, ResourceState>();
  let after: bigint | undefined;
  for (;;) {
    const batch = await store.readAll(after, BATCH, RESOURCE_TYPES);
    for (const e of batch) {
      after = e.position;
      if (!until(e) || !isResourceEvent(e)) continue;
      states.set(e.streamId, evolve(states.get(e.streamId) ?? initialState, e));
    }
    if (batch.length < BATCH) break;
  }
  return reviewPersonAccess(userId, states.values(), then);
}
