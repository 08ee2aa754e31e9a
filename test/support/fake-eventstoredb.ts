import { Readable } from 'node:stream';
import {
  ANY,
  BACKWARDS,
  END,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  StreamNotFoundError,
  WrongExpectedVersionError,
  type AppendExpectedRevision,
  type Filter,
  type JSONEventData,
  type Position,
  type ReadPosition,
} from '@eventstore/db-client';

/*
 * A stand-in for an EventStoreDB server behind @eventstore/db-client 6.2.1: the client methods
 * EsdbEventStore calls, answering as the server does where the adapter's correctness depends on it.
 * What it models, and where that is written down:
 *
 * - Positions are byte offsets of records in the transaction log, not event counters: each event
 *   is a record of some hundred bytes, so the position after p is not p + 1 (each gRPC append is
 *   an implicit transaction: an event's commit and prepare positions are equal). The first record
 *   does not start at 0 (the log opens with the server's own records).
 * - Reading $all, or subscribing to it, from a position where no record starts fails with
 *   InvalidPosition: the server's reader lands mid-record and answers InvalidReadException,
 *   which the storage reader turns into ReadAllResult/FilteredReadAllResult.InvalidPosition
 *   (kurrent-io/KurrentDB src/EventStore.Core/Services/Storage/StorageReaderWorker.cs, "The read
 *   appears to be at an invalid position"; Enumerator.AllSubscription(Filtered).cs throw
 *   ReadResponseException.InvalidPosition).
 * - `readAll` from a position includes the record there; `subscribeToAll` from a position starts
 *   after it (Enumerator.AllSubscription.cs: "we should send on events _after_ this"; events
 *   `<= checkpoint` are skipped). `readAll` sends no filter in client 6.2.1 (readAll.ts:
 *   `options.setNoFilter(new Empty())`): every record crosses the wire and is counted here.
 * - A filtered subscription reads pages of `maxSearchWindow` records (32 unless given) and sends
 *   a checkpoint once `checkpointInterval × maxSearchWindow` records have been looked through, at
 *   the later of the last event it sent and the start of the page it just looked through: a
 *   record the server has passed (Enumerator.AllSubscriptionFiltered.cs, CatchUp; the checkpoint
 *   at the end of the catch-up as fixed in kurrent-io/KurrentDB#4975, never the end of the log).
 *   Then it says it caught up, and sends what is appended later. The client awaits
 *   `checkpointReached` before it handles the next message (Subscription.ts, _transform).
 * - A stream's `$maxAge` (seconds, in its metadata stream `$$<stream>`) hides its events older
 *   than that from reads of the stream, by the server's clock (here the injected `now`), while
 *   the stream's revision still counts them, so an append expected at `no_stream` fails
 *   (IndexReader.cs: `prepare.TimeStamp < DateTime.UtcNow - metadata.MaxAge.Value` reads as not
 *   found); scavenging then deletes them. Reads of $all do not apply stream metadata.
 * - An append whose event ids are those already written after its expected revision is answered
 *   as that write again, not stored twice (the server's idempotent write check).
 */

/** What the server answers a read of $all from a position where no record starts. */
export class InvalidPositionError extends Error {
  constructor(readonly position: bigint) {
    super(`InvalidPosition: no record of the log starts at ${position}`);
    this.name = 'InvalidPositionError';
  }
}

type StoredRecord = {
  readonly streamId: string;
  readonly revision: bigint;
  readonly type: string;
  readonly id: string;
  readonly data: unknown;
  readonly metadata: unknown;
  /** The server's clock when it was written (ms). */
  readonly created: number;
  readonly position: bigint;
};

/** Where the log's first user record starts: after the server's own records. */
const FIRST_POSITION = 1_296n;
/** Bytes of a record besides its stream name, type, data and metadata (the prepare header, ids, lengths). */
const RECORD_OVERHEAD = 122;
/** The filtered subscription's page when the client gives no maxSearchWindow (the server's ReadBatchSize). */
const DEFAULT_SEARCH_WINDOW = 32;
/** Objects a readable holds before the server's stream waits for the client to read (gRPC flow control). */
const IN_FLIGHT = 16;

const MAX_READ = Number.MAX_SAFE_INTEGER;

function resolvedOf(record: StoredRecord) {
  const position: Position = { commit: record.position, prepare: record.position };
  return {
    event: {
      streamId: record.streamId,
      id: record.id,
      revision: record.revision,
      type: record.type,
      data: record.data,
      metadata: record.metadata,
      isJson: true,
      created: record.created,
      position,
    },
    commitPosition: record.position,
  };
}

function matches(filter: Filter | undefined, record: StoredRecord): boolean {
  if (!filter) return true;
  const subject = filter.filterOn === 'streamName' ? record.streamId : record.type;
  if ('prefixes' in filter) return filter.prefixes.some((prefix) => subject.startsWith(prefix));
  return new RegExp(filter.regex).test(subject);
}

type Deferred = { promise: Promise<void>; resolve: () => void };
function deferred(): Deferred {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** A read of $all or of a stream: pushes its records as the client reads them. */
class LogRead extends Readable {
  cancelled = false;
  private taken = 0;

  constructor(
    private readonly next: () => StoredRecord | undefined,
    private readonly maxCount: number,
    private readonly counted: () => void,
    private readonly failure?: Error,
  ) {
    super({ objectMode: true, highWaterMark: IN_FLIGHT });
  }

  override _read(): void {
    if (this.failure) {
      this.destroy(this.failure);
      return;
    }
    const record = this.taken < this.maxCount ? this.next() : undefined;
    if (!record) {
      this.push(null);
      return;
    }
    this.taken += 1;
    this.counted();
    this.push(resolvedOf(record));
  }

  async cancel(): Promise<void> {
    this.cancelled = true;
    if (!this.destroyed) this.destroy();
  }
}

/** A catch-up subscription to $all: the server's side of it and the client's readable in one. */
export class FakeAllSubscription extends Readable {
  /** Events this subscription sent to the client. */
  sent = 0;
  /** Checkpoints it sent, in order. */
  readonly checkpoints: bigint[] = [];
  caughtUp = false;
  unsubscribed = false;
  private room = deferred();

  constructor(
    private readonly server: FakeEventStoreDb,
    private readonly start: bigint | undefined,
    private readonly filtering: Filter | undefined,
  ) {
    super({ objectMode: true, highWaterMark: IN_FLIGHT });
    void this.run().catch((error: unknown) => this.destroy(error as Error));
  }

  override _read(): void {
    const waiting = this.room;
    this.room = deferred();
    waiting.resolve();
  }

  async unsubscribe(): Promise<void> {
    this.unsubscribed = true;
    this.room.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    if (!this.destroyed) this.push(null);
  }

  private async send(record: StoredRecord): Promise<void> {
    while (!this.unsubscribed && this.readableLength >= IN_FLIGHT) await this.room.promise;
    if (this.unsubscribed) return;
    this.sent += 1;
    this.server.sentFromAll += 1;
    this.push(resolvedOf(record));
  }

  private async checkpoint(position: bigint): Promise<void> {
    const reached = this.filtering?.checkpointReached;
    if (!reached || this.unsubscribed) return;
    this.checkpoints.push(position);
    // Servers of the 23.10 line name a checkpoint (C, 0): AllReader's next position (kurrent-io/KurrentDB#3989).
    const prepare = this.server.checkpointStyle === 'v23' ? 0n : position;
    await reached(this as never, { commit: position, prepare });
  }

  private async run(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    let index = this.server.indexAfter(this.start);
    const window = this.filtering?.maxSearchWindow ?? DEFAULT_SEARCH_WINDOW;
    const interval = (this.filtering?.checkpointInterval ?? 1) * window;
    let counter = 0;
    let lastSent: bigint | undefined;
    let lastPageStart: bigint | undefined;
    // Catching up, a page of the log at a time.
    for (;;) {
      if (this.unsubscribed) return;
      const page = this.server.records(index, window);
      if (page.length === 0) break;
      const pageStart = page[0]!.position;
      lastPageStart = pageStart;
      for (const record of page) {
        if (matches(this.filtering, record)) {
          await this.send(record);
          if (this.unsubscribed) return;
          lastSent = record.position;
        }
      }
      index += page.length;
      counter += page.length;
      if (index >= this.server.length) break;
      if (counter >= interval) {
        counter %= interval;
        await this.checkpoint(lastSent !== undefined && lastSent > pageStart ? lastSent : pageStart);
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (this.server.saysCaughtUp) {
      // Before kurrent-io/KurrentDB#4975 (in no 23.x or 24.x release) the empty page at the end names
      // the end of the log: where the next record will start, not one that exists.
      if (this.server.checkpointStyle === 'v23') await this.checkpoint(this.server.endOfLog);
      else if (lastPageStart !== undefined)
        await this.checkpoint(lastSent !== undefined && lastSent > lastPageStart ? lastSent : lastPageStart);
      if (this.unsubscribed) return;
      this.caughtUp = true;
      this.emit('caughtUp');
    }
    // Live: what is appended from now on.
    for (;;) {
      while (index >= this.server.length) {
        await Promise.race([this.server.appended(), this.room.promise]);
        if (this.unsubscribed) return;
      }
      const record = this.server.records(index, 1)[0]!;
      index += 1;
      counter += 1;
      if (matches(this.filtering, record)) await this.send(record);
      if (this.unsubscribed) return;
      if (counter >= interval) {
        counter = 0;
        await this.checkpoint(record.position);
      }
    }
  }
}

/**
 * The server and the client in one object: pass it where EsdbEventStore takes its client.
 * `now` is the server's clock (ms), which `$maxAge` is measured against.
 */
export class FakeEventStoreDb {
  /** Records of $all the server sent to the client: by `readAll` and by subscriptions. */
  sentFromAll = 0;
  /** Every read of $all asked for, with how many records it asked for at most. */
  readonly allReads: { direction: 'forwards' | 'backwards'; maxCount: number }[] = [];
  readonly subscriptions: FakeAllSubscription[] = [];
  private readonly log: StoredRecord[] = [];
  private readonly starts = new Set<bigint>();
  private readonly streams = new Map<string, StoredRecord[]>();
  private readonly maxAges = new Map<string, number>();
  private end = FIRST_POSITION;
  private growth = deferred();

  private readonly now: () => number;
  /** False: a server older than 23.10, which never says a catch-up subscription caught up. */
  readonly saysCaughtUp: boolean;

  /**
   * False: a client connected with `throwOnAppendFailure=false`, which resolves a failed
   * compare-and-set as `{success: false, nextExpectedRevision, position: undefined}` instead of
   * throwing (@eventstore/db-client appendToStream/batchAppend.js).
   */
  readonly throwOnAppendFailure: boolean;
  /**
   * How a filtered subscription names its checkpoints: `v24`, a record's own position; `v23`, as
   * servers before 24.2 do, (commit, 0) while catching up and, at its end, the end of the log.
   */
  readonly checkpointStyle: 'v23' | 'v24';

  constructor(
    options: {
      now?: () => number;
      saysCaughtUp?: boolean;
      throwOnAppendFailure?: boolean;
      checkpointStyle?: 'v23' | 'v24';
    } = {},
  ) {
    this.now = options.now ?? Date.now;
    this.saysCaughtUp = options.saysCaughtUp ?? true;
    this.throwOnAppendFailure = options.throwOnAppendFailure ?? true;
    this.checkpointStyle = options.checkpointStyle ?? 'v24';
  }

  get length(): number {
    return this.log.length;
  }

  /** The position where the next record will start: no record starts there yet. */
  get endOfLog(): bigint {
    return this.end;
  }

  /** Whether a record starts at `position`. */
  isRecordStart(position: bigint): boolean {
    return this.starts.has(position);
  }

  records(from: number, count: number): StoredRecord[] {
    return this.log.slice(from, from + count);
  }

  appended(): Promise<void> {
    return this.growth.promise;
  }

  /**
   * Where a read or subscription starts: the index of the first record at `position` (inclusive)
   * or after it; InvalidPositionError when no record starts there, inside the log.
   */
  private indexAt(position: bigint, inclusive: boolean): number {
    if (position < this.end && !this.starts.has(position)) throw new InvalidPositionError(position);
    const index = this.log.findIndex((record) =>
      inclusive ? record.position >= position : record.position > position,
    );
    return index === -1 ? this.log.length : index;
  }

  indexAfter(start: bigint | undefined): number {
    return start === undefined ? 0 : this.indexAt(start, false);
  }

  /** Appends at once, without a client call: a test's given log. Answers each event's position. */
  write(
    streamId: string,
    events: readonly { type: string; data?: unknown; metadata?: unknown; id?: string }[],
  ): bigint[] {
    const stream = this.streams.get(streamId) ?? [];
    this.streams.set(streamId, stream);
    const positions = events.map((event, i) => {
      const record: StoredRecord = {
        streamId,
        revision: BigInt(stream.length),
        type: event.type,
        id: event.id ?? `${streamId}-${stream.length}-${i}`,
        data: event.data ?? {},
        metadata: event.metadata ?? {},
        created: this.now(),
        position: this.end,
      };
      const bytes = Buffer.byteLength(
        streamId + record.type + JSON.stringify(record.data) + JSON.stringify(record.metadata),
      );
      this.end += BigInt(RECORD_OVERHEAD + bytes);
      this.log.push(record);
      this.starts.add(record.position);
      stream.push(record);
      return record.position;
    });
    const grown = this.growth;
    this.growth = deferred();
    grown.resolve();
    return positions;
  }

  /** Every event of a stream as stored, those hidden by its $maxAge included. */
  storedIn(streamId: string): readonly { readonly type: string; readonly data: unknown; readonly position: bigint }[] {
    return this.streams.get(streamId) ?? [];
  }

  /** `count` events of `type`, each in its own stream: a log of many others. */
  fill(type: string, count: number): bigint[] {
    const positions: bigint[] = [];
    for (let i = 0; i < count; i++) positions.push(...this.write(`filler-${this.log.length}`, [{ type }]));
    return positions;
  }

  // --- the client's methods --------------------------------------------------------------

  readonly appendToStream = async (
    streamId: string,
    proposed: JSONEventData | JSONEventData[],
    options: { expectedRevision?: AppendExpectedRevision } = {},
  ) => {
    // Every caller awaits before the server decides: concurrent appends really race.
    await new Promise((resolve) => setImmediate(resolve));
    const events = Array.isArray(proposed) ? proposed : [proposed];
    const expected = options.expectedRevision ?? ANY;
    const stream = this.streams.get(streamId) ?? [];
    const current = stream.length === 0 ? undefined : BigInt(stream.length - 1);
    const fits =
      expected === ANY ||
      (expected === NO_STREAM && current === undefined) ||
      (expected === STREAM_EXISTS && current !== undefined) ||
      (typeof expected === 'bigint' && current === expected);
    if (!fits) {
      // The same ids after the expected revision: the write the server already holds.
      const after = expected === NO_STREAM ? 0 : typeof expected === 'bigint' ? Number(expected) + 1 : -1;
      const held = after >= 0 ? stream.slice(after, after + events.length) : [];
      if (held.length === events.length && held.every((record, i) => record.id === events[i]!.id)) {
        const last = held.at(-1)!;
        return {
          success: true,
          nextExpectedRevision: last.revision,
          position: { commit: last.position, prepare: last.position },
        };
      }
      if (!this.throwOnAppendFailure)
        return { success: false, nextExpectedRevision: current ?? -1n, position: undefined };
      throw new WrongExpectedVersionError(undefined, {
        streamName: streamId,
        expected,
        current: current ?? NO_STREAM,
      });
    }
    const positions = this.write(
      streamId,
      events.map((event) => ({ type: event.type, data: event.data, metadata: event.metadata, id: event.id })),
    );
    const last = positions.at(-1)!;
    return {
      success: true,
      nextExpectedRevision: BigInt(this.streams.get(streamId)!.length - 1),
      position: { commit: last, prepare: last },
    };
  };

  readonly setStreamMetadata = async (streamId: string, metadata: { maxAge?: number }) => {
    const result = await this.appendToStream(`$$${streamId}`, {
      id: `metadata-${streamId}-${this.log.length}`,
      contentType: 'application/json',
      type: '$metadata',
      data: metadata.maxAge === undefined ? {} : { $maxAge: metadata.maxAge },
      metadata: undefined,
    } as JSONEventData);
    if (metadata.maxAge === undefined) this.maxAges.delete(streamId);
    else this.maxAges.set(streamId, metadata.maxAge);
    return result;
  };

  readonly getStreamMetadata = async (streamId: string) => {
    const maxAge = this.maxAges.get(streamId);
    return { streamName: streamId, metadata: maxAge === undefined ? undefined : { maxAge } };
  };

  readonly readStream = (
    streamId: string,
    options: { direction?: string; fromRevision?: unknown; maxCount?: number | bigint } = {},
  ) => {
    const stored = this.streams.get(streamId);
    const maxAge = this.maxAges.get(streamId);
    const visible = (stored ?? []).filter(
      (record) => maxAge === undefined || record.created >= this.now() - maxAge * 1000,
    );
    if (options.direction === BACKWARDS && options.fromRevision !== undefined && options.fromRevision !== END)
      throw new Error('the stand-in reads a stream backwards from END only');
    // Forwards from a revision: the first event stored at it or after it (an expired one is skipped).
    const from = typeof options.fromRevision === 'bigint' ? options.fromRevision : 0n;
    const ordered =
      options.direction === BACKWARDS ? [...visible].reverse() : visible.filter((record) => record.revision >= from);
    let next = 0;
    return new LogRead(
      () => ordered[next++],
      Number(options.maxCount ?? MAX_READ),
      () => undefined,
      stored ? undefined : new StreamNotFoundError(undefined, streamId),
    );
  };

  readonly readAll = (
    options: { direction?: string; fromPosition?: ReadPosition; maxCount?: number | bigint } = {},
  ) => {
    const maxCount = Number(options.maxCount ?? MAX_READ);
    const counted = () => {
      this.sentFromAll += 1;
    };
    if (options.direction === BACKWARDS) {
      this.allReads.push({ direction: 'backwards', maxCount });
      let next = this.log.length - 1;
      if (options.fromPosition !== undefined && options.fromPosition !== END)
        throw new Error('the stand-in reads $all backwards from END only');
      return new LogRead(() => (next >= 0 ? this.log[next--] : undefined), maxCount, counted);
    }
    this.allReads.push({ direction: 'forwards', maxCount });
    const from = options.fromPosition ?? START;
    try {
      let next = from === START ? 0 : this.indexAt((from as Position).commit, true);
      return new LogRead(() => this.log[next++], maxCount, counted);
    } catch (error) {
      return new LogRead(() => undefined, maxCount, counted, error as Error);
    }
  };

  readonly subscribeToAll = (options: { fromPosition?: ReadPosition; filter?: Filter } = {}) => {
    const from = options.fromPosition ?? START;
    if (from === END) throw new Error('the stand-in subscribes from a position or START only');
    const start = from === START ? undefined : from.commit;
    const subscription = new FakeAllSubscription(this, start, options.filter);
    this.subscriptions.push(subscription);
    return subscription;
  };

  readonly dispose = async () => {
    await Promise.all(this.subscriptions.map((subscription) => subscription.unsubscribe()));
  };
}
