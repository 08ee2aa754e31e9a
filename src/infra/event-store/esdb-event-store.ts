import {
  ANY,
  BACKWARDS,
  END,
  EventStoreDBClient,
  NO_STREAM,
  START,
  StreamNotFoundError,
  WrongExpectedVersionError,
  excludeSystemEvents,
  jsonEvent,
  type AppendExpectedRevision,
  type JSONType,
  type Position,
  type ReadPosition,
  type RecordedEvent as EsdbRecordedEvent,
  type ResolvedEvent,
} from '@eventstore/db-client';
import type { EventMetadata } from '../../domain/event';
import {
  storableJson,
  WrongExpectedRevisionError,
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type RecordedEvent,
  type Subscription,
} from './event-store';
import { consumeRead, readAtMost, withDeadline } from './streaming-read';

/*
 * Positions: the port's global position is the ESDB commit position. Every event appended through
 * the gRPC API is its own implicit transaction record, so its commit and prepare positions are
 * equal and `{commit: p, prepare: p}` names exactly that event. ESDB reads $all *from* a position
 * inclusively while the port's `from` is exclusive, so reads and subscriptions start at `from` and
 * skip every event whose commit position is not greater than it.
 */

const readAllPageSize = 512;
/** Readiness asks often and must answer quickly when the server does not. */
const pingDeadlineMs = 2000;

function toEsdbRevision(expected: ExpectedRevision): AppendExpectedRevision {
  if (expected === 'no_stream') return NO_STREAM;
  if (expected === 'any') return ANY;
  return expected;
}

function startAt(from: bigint | undefined): ReadPosition {
  return from === undefined ? START : { commit: from, prepare: from };
}

function isSystemEvent(event: EsdbRecordedEvent): boolean {
  return event.type.startsWith('$');
}

/** EventStoreDB answered an event or an append without its position: a server older than 22.6. */
export class NoPositionError extends Error {
  constructor(what: string) {
    super(`EventStoreDB returned no position for ${what}`);
    this.name = 'NoPositionError';
  }
}

function toRecorded(event: EsdbRecordedEvent, position: Position | undefined): RecordedEvent {
  if (!position) throw new NoPositionError(`${event.streamId}@${event.revision}`);
  return {
    streamId: event.streamId,
    type: event.type,
    data: event.data,
    metadata: event.metadata as EventMetadata,
    revision: event.revision,
    position: position.commit,
  };
}

function fromResolved(resolved: ResolvedEvent): RecordedEvent | undefined {
  const event = resolved.event;
  if (!event) return undefined;
  const commit = event.position?.commit ?? resolved.commitPosition;
  return toRecorded(event, commit === undefined ? undefined : { commit, prepare: commit });
}

/** The commit position of an append is that of its last event. */
function appendPosition(position: Position | undefined, count: number): bigint {
  if (position) return position.commit;
  // Callers wait for projections to reach this position: guessing one would break read-your-writes.
  if (count > 0) throw new NoPositionError('an append (server older than 22.6?)');
  return -1n;
}

/** Fails before anything is sent, like the SQLite adapter, when an event cannot be stored as JSON. */
function asJson(value: unknown, streamId: string, eventType: string): JSONType {
  return JSON.parse(storableJson(value, streamId, eventType)) as JSONType;
}

export class EsdbEventStore implements EventStore {
  private readonly subscriptions = new Set<Subscription>();

  private constructor(
    private readonly client: EventStoreDBClient,
    readonly identity: string,
  ) {}

  static connect(connectionString: string): EsdbEventStore {
    // The hosts name the cluster; credentials and options do not.
    const hosts = connectionString.replace(/^[a-z+]+:\/\/(?:[^@/]*@)?/i, '').split(/[/?]/)[0] ?? connectionString;
    return new EsdbEventStore(EventStoreDBClient.connectionString(connectionString), `esdb:${hosts}`);
  }

  async appendToStream(streamId: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    const proposed = events.map((event) =>
      jsonEvent({ type: event.type, data: asJson(event.data, streamId, event.type), metadata: asJson(event.metadata, streamId, event.type) }),
    );
    try {
      const result = await this.client.appendToStream(streamId, proposed, { expectedRevision: toEsdbRevision(expected) });
      return { nextExpectedRevision: result.nextExpectedRevision, position: appendPosition(result.position, events.length) };
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) {
        const actual = typeof error.actualVersion === 'bigint' ? error.actualVersion : 'no_stream';
        throw new WrongExpectedRevisionError(streamId, expected, actual);
      }
      throw error;
    }
  }

  async readStream(streamId: string): Promise<RecordedEvent[]> {
    const events: RecordedEvent[] = [];
    try {
      await consumeRead(this.client.readStream(streamId), (resolved) => {
        const event = fromResolved(resolved);
        if (event) events.push(event);
        return true;
      });
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
    return events;
  }

  async readLastEvent(streamId: string): Promise<RecordedEvent | undefined> {
    try {
      const read = this.client.readStream(streamId, { direction: BACKWARDS, fromRevision: END, maxCount: 1 });
      const [event] = await readAtMost(read, 1, fromResolved);
      return event;
    } catch (error) {
      if (error instanceof StreamNotFoundError) return undefined;
      throw error;
    }
  }

  async headPosition(): Promise<bigint | undefined> {
    const read = this.client.readAll({ direction: BACKWARDS, fromPosition: END, maxCount: 1 });
    try {
      for await (const resolved of read) return resolved.event?.position?.commit ?? resolved.commitPosition;
      return undefined;
    } finally {
      // Left after the first event: end the call rather than let the server stream on.
      read.cancel?.();
    }
  }

  async readAll(from: bigint | undefined, maxCount: number, types?: ReadonlySet<string>): Promise<RecordedEvent[]> {
    // readAll in this client has no server-side filter: page until enough user events (of `types`) are found.
    const events: RecordedEvent[] = [];
    let after = from;
    while (events.length < maxCount) {
      let seen = 0;
      let lastPosition: Position | undefined;
      const skipTo = after;
      await consumeRead(this.client.readAll({ fromPosition: startAt(after), maxCount: readAllPageSize }), (resolved) => {
        seen += 1;
        const event = resolved.event;
        if (!event) return true;
        lastPosition = event.position;
        if (skipTo !== undefined && event.position.commit <= skipTo) return true;
        if (!isSystemEvent(event) && (types === undefined || types.has(event.type))) events.push(toRecorded(event, event.position));
        return events.length < maxCount;
      });
      if (seen < readAllPageSize || !lastPosition || lastPosition.commit === after) break;
      after = lastPosition.commit;
    }
    return events;
  }

  subscribeToAll(
    from: bigint | undefined,
    onEvent: (event: RecordedEvent) => Promise<void>,
    onError?: (error: unknown) => void,
  ): Subscription {
    const subscription = this.client.subscribeToAll({ fromPosition: startAt(from), filter: excludeSystemEvents() });
    let closed = false;
    const handle: Subscription = {
      close: async () => {
        if (closed) return;
        closed = true;
        this.subscriptions.delete(handle);
        await subscription.unsubscribe();
      },
    };
    const run = async () => {
      // The async iterator pulls one event at a time, so onEvent is awaited before the next.
      for await (const resolved of subscription) {
        if (closed) return;
        const event = resolved.event;
        if (!event || isSystemEvent(event)) continue;
        if (from !== undefined && event.position.commit <= from) continue;
        await onEvent(toRecorded(event, event.position));
      }
      if (!closed) throw new Error('EventStoreDB subscription to $all ended');
    };
    run().catch(async (error: unknown) => {
      if (closed) return;
      closed = true;
      this.subscriptions.delete(handle);
      await subscription.unsubscribe().catch(() => undefined);
      // Without an onError nobody would learn that delivery stopped: let it surface as an unhandled rejection.
      if (!onError) throw error;
      onError(error);
    });
    this.subscriptions.add(handle);
    return handle;
  }

  async ping(): Promise<void> {
    // Any read answers the question; a missing stream is an answer too. The client sends reads
    // with an infinite gRPC deadline whatever `deadline` says, so the ping keeps its own.
    const read = this.client.readStream('ping', { maxCount: 1, deadline: pingDeadlineMs });
    try {
      await withDeadline(read, pingDeadlineMs, (started) => readAtMost(started, 1, () => true));
    } catch (error) {
      if (!(error instanceof StreamNotFoundError)) throw error;
    }
  }

  async close(): Promise<void> {
    // Subscriptions first, so that disposing the client is not reported to them as a failure.
    await Promise.all([...this.subscriptions].map((subscription) => subscription.close()));
    await this.client.dispose();
  }
}
