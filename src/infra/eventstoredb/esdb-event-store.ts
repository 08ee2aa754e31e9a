import {
  ANY,
  BACKWARDS,
  END,
  EventStoreDBClient,
  NO_STREAM,
  START,
  StreamNotFoundError,
  WrongExpectedVersionError,
  eventTypeFilter,
  excludeSystemEvents,
  jsonEvent,
  type AppendExpectedRevision,
  type JSONType,
  type Position,
  type ReadPosition,
  type RecordedEvent as EsdbRecordedEvent,
  type ResolvedEvent,
} from '@eventstore/db-client';
import { createHash, randomUUID } from 'node:crypto';
import type { EventMetadata } from '../../domain/event';
import type {
  IdempotencyClaim,
  IdempotencyKeys,
  IdempotencyRecord,
  IdempotencyRef,
  RecordedWrite,
  RememberedAnswer,
} from '../../ports/idempotency-keys';
import { IdempotencyClaimLostError } from '../../ports/idempotency-keys';
import {
  storableEvents,
  WrongExpectedRevisionError,
  type AppendOptions,
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type RecordedEvent,
  type StreamRange,
  type ScannedEvents,
  type Subscription,
} from '../../ports/event-store';
import {
  consumeRead,
  ReadDeadlineExceededError,
  readAtMost,
  withDeadline,
  type StreamingReadLike,
} from './streaming-read';
import { exactTypes, scanFiltered } from './filtered-scan';
import { withinMs } from '../deadline';

/*
 * Positions: the port's global position is the ESDB commit position. Every event appended through
 * the gRPC API is its own implicit transaction record, so its commit and prepare positions are
 * equal and `{commit: p, prepare: p}` names exactly that event. ESDB reads $all *from* a position
 * inclusively while the port's `from` is exclusive, so reads and subscriptions start at `from` and
 * skip every event whose commit position is not greater than it.
 */

const readAllPageSize = 512;
/**
 * A filtered scan's checkpoints: one per this many search windows of 32 events the server looked
 * through (about every 3,200 events), each a chance to store how far the scan got.
 */
const scanCheckpointInterval = 100;
/** A scan the server stops talking to (no event, no checkpoint, no caught-up) ends after this. */
const scanQuietMs = 5000;
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

/**
 * How the server says it knows no position for an event (one not committed by itself: written by a
 * legacy transaction): -1 on the wire, read by the client as the largest unsigned 64-bit number.
 */
const UNKNOWN_COMMIT = 0xffff_ffff_ffff_ffffn;

/** The commit position the server gave, or undefined where it gave none or said it knows none. */
const knownCommit = (position: Position | undefined): bigint | undefined =>
  position === undefined || position.commit === UNKNOWN_COMMIT ? undefined : position.commit;

function toRecorded(event: EsdbRecordedEvent, position: Position | undefined): RecordedEvent {
  const commit = knownCommit(position);
  if (commit === undefined) throw new NoPositionError(`${event.streamId}@${event.revision}`);
  return {
    streamId: event.streamId,
    type: event.type,
    data: event.data,
    metadata: event.metadata as EventMetadata,
    revision: event.revision,
    position: commit,
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
  const commit = knownCommit(position);
  if (commit !== undefined) return commit;
  // Callers wait for projections to reach this position: guessing one would break read-your-writes.
  if (count > 0) throw new NoPositionError('an append (server older than 22.6?)');
  return -1n;
}

/*
 * Idempotency keys on EventStoreDB: one stream per key, `idempotency-<hash of caller and key>`,
 * whose events (types starting with `$`, so that reads of the log and subscriptions skip them
 * like system events) are folded into the record; every change is appended at the revision read
 * (compare-and-set). EventStoreDB writes one stream per append, so the write cannot share the
 * transaction of the record as on SQLite. Instead the claim's holder records its intent
 * (`$idempotency-writing`, at the revision read: a holder that lost the claim fails here) and then
 * appends the events with ids derived from (caller, key, stream, index): a retry that finds an
 * intent without its `$idempotency-written` looks for those ids in the stream, and re-appending
 * the same ids at the same revision is a no-op for EventStoreDB.
 *
 * A key lasts as long as its claim says (expiresAt - now: 24 hours): each claim sets the stream's
 * `$maxAge` to that, so the server stops returning its events once they are older (by the
 * server's clock) and a scavenge deletes them; without it $all would grow by a stream per key for
 * ever. The stream's revision still counts the hidden events, so a key claimed again once all of
 * them are hidden reads as no stream but cannot be appended at `no_stream`: the claim is made at
 * the revision the server reports, if the stream still shows nothing.
 */
type IdempotencyFold = {
  record: IdempotencyRecord | undefined;
  intent?: { streamId: string; count: number };
  revision: bigint | undefined;
};

export const idempotencyStreamOf = (ref: IdempotencyRef): string =>
  `idempotency-${createHash('sha256').update(`${ref.scope}\u0000${ref.key}`).digest('hex').slice(0, 40)}`;

/** A UUID (version 5 layout) derived from the claim's caller and key, the stream and the event's index. */
export function idempotentEventId(ref: IdempotencyRef, streamId: string, index: number): string {
  return uuidV5Layout(`${ref.scope}\u0000${ref.key}\u0000${streamId}\u0000${index}`);
}

/**
 * The id of an event appended without an idempotency claim: a UUID (version 5 layout) derived from
 * the stream, the expected revision, the event's index in the append and the event itself (type,
 * data and metadata as stored). Why: an append whose answer was lost (a deadline, a dropped
 * connection) and that is sent again proposes the same ids at the same expected revision, and
 * EventStoreDB answers the repeat as the write it already holds instead of storing the events
 * twice. Why the content too: EventStoreDB takes an append whose ids match the events already
 * after its expected revision for that repeat, so another writer racing at the same revision must
 * not propose the same ids, or it would be told it succeeded when it lost (its metadata differs:
 * its own correlation id and time). This holds at a revision (or `no_stream`), which the server
 * checks against its index; at `'any'` it recognises a repeat only from its cache of recent
 * writes, so a repeat sent after a restart or a leader change may be stored twice.
 */
export function appendEventId(
  streamId: string,
  expected: ExpectedRevision,
  index: number,
  stored: { readonly type: string; readonly data: string; readonly metadata: string },
): string {
  return uuidV5Layout(
    ['append', streamId, String(expected), String(index), stored.type, stored.data, stored.metadata].join('\u0000'),
  );
}

function uuidV5Layout(name: string): string {
  const hex = createHash('sha256').update(name).digest('hex');
  const variant = ((parseInt(hex[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

type IdempotencyEvent =
  | { type: '$idempotency-claimed'; data: { fingerprint: string; owner: string; claimedAt: number; expiresAt: number } }
  | { type: '$idempotency-taken-over'; data: { owner: string; claimedAt: number } }
  | { type: '$idempotency-writing'; data: { streamId: string; count: number } }
  | { type: '$idempotency-written'; data: { streamId: string; position: string } }
  | { type: '$idempotency-answered'; data: RememberedAnswer }
  | { type: '$idempotency-released'; data: Record<string, never> }
  | { type: '$idempotency-abandoned'; data: Record<string, never> };

function foldIdempotency(events: readonly RecordedEvent[]): IdempotencyFold {
  let fold: IdempotencyFold = { record: undefined, revision: events.at(-1)?.revision };
  for (const event of events as unknown as readonly (IdempotencyEvent & { revision: bigint })[]) {
    const record = fold.record;
    switch (event.type) {
      case '$idempotency-claimed':
        fold = { record: { ...event.data }, revision: fold.revision };
        break;
      case '$idempotency-taken-over':
        if (record) fold.record = { ...record, owner: event.data.owner, claimedAt: event.data.claimedAt };
        break;
      case '$idempotency-writing':
        fold.intent = event.data;
        break;
      case '$idempotency-written':
        if (record)
          fold.record = { ...record, write: { streamId: event.data.streamId, position: BigInt(event.data.position) } };
        break;
      case '$idempotency-answered':
        if (record) fold.record = { ...record, answer: event.data };
        break;
      case '$idempotency-released':
        fold = { record: undefined, revision: fold.revision };
        break;
      case '$idempotency-abandoned':
        if (record) fold.record = { ...record, claimedAt: 0 };
        break;
    }
  }
  return fold;
}

/*
 * The log's identity lives in the log: the first process to ask appends one event holding a new
 * UUID to `log-identity` at `no_stream`; every other one (a concurrent first contact included)
 * loses that append and reads the winner's event back. Its type starts with `$`, so reads of the
 * log and subscriptions skip it like a system event. A host renamed keeps the id; an empty
 * EventStoreDB recreated under the same name gets a new one.
 */
export const LOG_IDENTITY_STREAM = 'log-identity';
const LOG_IDENTITY_TYPE = '$log-identity';

/** The stream `log-identity` holds no usable id: something other than this service wrote it. */
export class MalformedLogIdentityError extends Error {
  constructor() {
    super(`EventStoreDB stream ${LOG_IDENTITY_STREAM} holds no log id`);
    this.name = 'MalformedLogIdentityError';
  }
}

/**
 * A call of the log with no answer by then is given up (ReadDeadlineExceededError: a passing
 * failure, a 503): the client sends every read with an infinite gRPC deadline, and an append waits
 * first, with no bound, on its probe of the server's capabilities; across a cut network or a
 * server that accepts and never answers, neither would end.
 */
const DEFAULT_CALL_DEADLINE_MS = 10_000;

export class EsdbEventStore implements EventStore, IdempotencyKeys {
  private readonly subscriptions = new Set<Subscription>();
  private logId: Promise<string> | undefined;

  private constructor(
    private readonly client: EventStoreDBClient,
    private readonly callDeadlineMs: number = DEFAULT_CALL_DEADLINE_MS,
  ) {}

  /** A read of the client, run to its end or left by `visit` within the call deadline. */
  private consume<T>(read: StreamingReadLike<T>, visit: (item: T) => boolean): Promise<void> {
    return withDeadline(read, this.callDeadlineMs, (started) => consumeRead(started, visit));
  }

  /** The first `n` items `map` keeps, within the call deadline. */
  private atMost<T, R>(read: StreamingReadLike<T>, n: number, map: (item: T) => R | undefined): Promise<R[]> {
    return withDeadline(read, this.callDeadlineMs, (started) => readAtMost(started, n, map));
  }

  /**
   * A unary call (an append, a stream's metadata) given up past the call deadline. It may still
   * land on the server: an append at a revision carries ids of its own, so its retry writes
   * nothing twice; one with `'any'` is recognised by the server only while its ids are in the
   * server's cache of recent writes (not after a restart or a leader change).
   */
  private within<T>(call: Promise<T>): Promise<T> {
    return withinMs(call, this.callDeadlineMs, () => new ReadDeadlineExceededError(this.callDeadlineMs));
  }

  /**
   * An append, within the call deadline; a lost compare-and-set always throws
   * WrongExpectedVersionError, on which every conflict here relies (a stream's revision, the log's
   * id, an idempotency claim). The client resolves `{success: false}` instead under
   * `throwOnAppendFailure=false`, which the configuration refuses: checked here as well.
   */
  private async append(
    streamId: string,
    events: Parameters<EventStoreDBClient['appendToStream']>[1],
    expectedRevision: AppendExpectedRevision,
  ) {
    const result = await this.within(this.client.appendToStream(streamId, events, { expectedRevision }));
    if (!result.success)
      throw new WrongExpectedVersionError(undefined, {
        streamName: streamId,
        expected: expectedRevision,
        current: result.nextExpectedRevision < 0n ? NO_STREAM : result.nextExpectedRevision,
      });
    return result;
  }

  static connect(connectionString: string, options: { readonly callDeadlineMs?: number } = {}): EsdbEventStore {
    return new EsdbEventStore(
      EventStoreDBClient.connectionString(connectionString),
      options.callDeadlineMs ?? DEFAULT_CALL_DEADLINE_MS,
    );
  }

  identity(): Promise<string> {
    // Asked once per instance; a failure (the server unreachable) is asked again next time.
    this.logId ??= this.writeOrReadLogId().catch((error: unknown) => {
      this.logId = undefined;
      throw error;
    });
    return this.logId;
  }

  private async writeOrReadLogId(): Promise<string> {
    const mine = randomUUID();
    try {
      await this.append(LOG_IDENTITY_STREAM, [jsonEvent({ type: LOG_IDENTITY_TYPE, data: { id: mine } })], NO_STREAM);
      return `esdb:${mine}`;
    } catch (error) {
      if (!(error instanceof WrongExpectedVersionError)) throw error;
    }
    const [first] = await this.atMost(this.client.readStream(LOG_IDENTITY_STREAM, { maxCount: 1 }), 1, fromResolved);
    const id = (first?.data as { id?: unknown } | undefined)?.id;
    if (typeof id !== 'string' || id === '') throw new MalformedLogIdentityError();
    return `esdb:${id}`;
  }

  async appendToStream(
    streamId: string,
    events: readonly NewEvent[],
    expected: ExpectedRevision,
    options?: AppendOptions,
  ): Promise<AppendResult> {
    const claim = options?.idempotency;
    // Fails before anything is sent, like the SQLite adapter: an event with no JSON, an append too large.
    const texts = storableEvents(streamId, events);
    const proposed = events.map((event, index) =>
      jsonEvent({
        type: event.type,
        data: JSON.parse(texts[index]!.data) as JSONType,
        metadata: JSON.parse(texts[index]!.metadata) as JSONType,
        id: claim
          ? idempotentEventId(claim, streamId, index)
          : appendEventId(streamId, expected, index, { type: event.type, ...texts[index]! }),
      }),
    );
    try {
      const intended = claim && events.length > 0 ? await this.intendWrite(claim, streamId, events.length) : false;
      const result = await this.append(streamId, proposed, toEsdbRevision(expected));
      const position = appendPosition(result.position, events.length);
      if (claim && intended) {
        await this.appendIdempotency(
          claim,
          [{ type: '$idempotency-written', data: { streamId, position: position.toString() } }],
          ANY,
        );
      }
      return { nextExpectedRevision: result.nextExpectedRevision, position };
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) {
        const actual = typeof error.actualVersion === 'bigint' ? error.actualVersion : 'no_stream';
        throw new WrongExpectedRevisionError(streamId, expected, actual);
      }
      throw error;
    }
  }

  /**
   * Checks the claim and records the intent of the claim's first write; false when a write is already
   * recorded or intended.
   */
  private async intendWrite(claim: IdempotencyClaim, streamId: string, count: number): Promise<boolean> {
    const fold = foldIdempotency(await this.readStream(idempotencyStreamOf(claim)));
    if (fold.record?.owner !== claim.owner) throw new IdempotencyClaimLostError(claim);
    if (fold.record.write || fold.intent) return false;
    await this.appendIdempotency(claim, [{ type: '$idempotency-writing', data: { streamId, count } }], fold.revision);
    return true;
  }

  private async appendIdempotency(
    ref: IdempotencyRef,
    events: readonly IdempotencyEvent[],
    revision: bigint | undefined | AppendExpectedRevision,
  ): Promise<boolean> {
    const expectedRevision = revision === undefined ? NO_STREAM : revision;
    try {
      await this.append(
        idempotencyStreamOf(ref),
        events.map((e) => jsonEvent({ type: e.type, data: e.data as JSONType })),
        expectedRevision,
      );
      return true;
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) {
        if (events.some((e) => e.type === '$idempotency-writing')) throw new IdempotencyClaimLostError(ref);
        return false;
      }
      throw error;
    }
  }

  /** The record, with the write of an intent found in its stream when `$idempotency-written` is missing. */
  private async idempotencyFold(ref: IdempotencyRef): Promise<IdempotencyFold> {
    const fold = foldIdempotency(await this.readStream(idempotencyStreamOf(ref)));
    const { record, intent } = fold;
    if (!record || record.write || !intent) return fold;
    const ids = new Set(Array.from({ length: intent.count }, (_, i) => idempotentEventId(ref, intent.streamId, i)));
    let write: RecordedWrite | undefined;
    try {
      await this.consume(this.client.readStream(intent.streamId), (resolved) => {
        const event = resolved.event;
        const position = knownCommit(event?.position);
        if (event && ids.has(event.id) && position !== undefined) write = { streamId: intent.streamId, position };
        return true;
      });
    } catch (error) {
      if (!(error instanceof StreamNotFoundError)) throw error;
    }
    return write ? { ...fold, record: { ...record, write } } : fold;
  }

  async readIdempotencyKey(ref: IdempotencyRef, now: number): Promise<IdempotencyRecord | undefined> {
    const { record } = await this.idempotencyFold(ref);
    return record && record.expiresAt > now ? record : undefined;
  }

  async claimIdempotencyKey(
    claim: IdempotencyClaim,
    record: { readonly fingerprint: string; readonly now: number; readonly expiresAt: number },
    replacing?: string,
  ): Promise<boolean> {
    const fold = await this.idempotencyFold(claim);
    const live = fold.record && fold.record.expiresAt > record.now ? fold.record : undefined;
    if (replacing === undefined) {
      if (live) return false;
      return this.claimAfresh(claim, record, fold.revision);
    }
    if (live?.owner !== replacing || live.answer) return false;
    // A write found from the intent is recorded with the takeover.
    const found: IdempotencyEvent[] = [];
    if (live.write && fold.intent)
      found.push({
        type: '$idempotency-written',
        data: { streamId: live.write.streamId, position: live.write.position.toString() },
      });
    return this.appendIdempotency(
      claim,
      [...found, { type: '$idempotency-taken-over', data: { owner: claim.owner, claimedAt: record.now } }],
      fold.revision,
    );
  }

  /** A new claim of a key with no live record: its stream kept only as long as the key lasts. */
  private async claimAfresh(
    claim: IdempotencyClaim,
    record: { readonly fingerprint: string; readonly now: number; readonly expiresAt: number },
    revision: bigint | undefined,
  ): Promise<boolean> {
    const stream = idempotencyStreamOf(claim);
    const maxAge = Math.max(1, Math.ceil((record.expiresAt - record.now) / 1000));
    await this.within(this.client.setStreamMetadata(stream, { maxAge }));
    const claimed: IdempotencyEvent = {
      type: '$idempotency-claimed',
      data: { fingerprint: record.fingerprint, owner: claim.owner, claimedAt: record.now, expiresAt: record.expiresAt },
    };
    try {
      await this.append(
        stream,
        [jsonEvent({ type: claimed.type, data: claimed.data as JSONType })],
        revision ?? NO_STREAM,
      );
      return true;
    } catch (error) {
      if (!(error instanceof WrongExpectedVersionError)) throw error;
      if (revision !== undefined || typeof error.actualVersion !== 'bigint') return false;
      // Nothing to read, yet the stream has events: all of them older than its $maxAge. Unless
      // another claim shows up meanwhile, claim at the revision they reached.
      if (foldIdempotency(await this.readStream(stream)).revision !== undefined) return false;
      return this.appendIdempotency(claim, [claimed], error.actualVersion);
    }
  }

  async completeIdempotencyKey(claim: IdempotencyClaim, answer: RememberedAnswer): Promise<boolean> {
    const fold = foldIdempotency(await this.readStream(idempotencyStreamOf(claim)));
    if (fold.record?.owner !== claim.owner || fold.record.answer) return false;
    return this.appendIdempotency(claim, [{ type: '$idempotency-answered', data: answer }], fold.revision);
  }

  async releaseIdempotencyKey(claim: IdempotencyClaim): Promise<void> {
    const fold = foldIdempotency(await this.readStream(idempotencyStreamOf(claim)));
    if (fold.record?.owner !== claim.owner || fold.record.answer) return;
    const type = fold.record.write || fold.intent ? '$idempotency-abandoned' : '$idempotency-released';
    await this.appendIdempotency(claim, [{ type, data: {} }], fold.revision);
  }

  async readStream(streamId: string, range?: StreamRange): Promise<RecordedEvent[]> {
    const events: RecordedEvent[] = [];
    if (range && range.maxCount <= 0) return events;
    const options = range ? { fromRevision: range.fromRevision, maxCount: range.maxCount } : {};
    try {
      await this.consume(this.client.readStream(streamId, options), (resolved) => {
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
      const [event] = await this.atMost(read, 1, fromResolved);
      return event;
    } catch (error) {
      if (error instanceof StreamNotFoundError) return undefined;
      throw error;
    }
  }

  async headPosition(): Promise<bigint | undefined> {
    const read = this.client.readAll({ direction: BACKWARDS, fromPosition: END, maxCount: 1 });
    const [head] = await this.atMost(
      read,
      1,
      (resolved) => knownCommit(resolved.event?.position) ?? resolved.commitPosition,
    );
    return head;
  }

  /**
   * A read of some types is filtered on the server (`scanAll`): this client's readAll sends no
   * filter, so paging $all for them would bring every event of the log across the wire to find
   * a rare type. A read of every type pages $all.
   */
  async readAll(from: bigint | undefined, maxCount: number, types?: ReadonlySet<string>): Promise<RecordedEvent[]> {
    if (types !== undefined) return (await this.scanAll(from, maxCount, types)).events;
    return this.pageAll(from, maxCount, undefined);
  }

  /**
   * $all read through the client, page by page, until enough user events (of `types`, when
   * given) are found: reads of every type, and the rest of a scan on a server that went quiet.
   * A read of every type asks for no more than it still needs (and the event at `from`, which
   * the server sends again), so a poll for the next event does not bring a page of 512.
   */
  private async pageAll(
    from: bigint | undefined,
    maxCount: number,
    types: ReadonlySet<string> | undefined,
  ): Promise<RecordedEvent[]> {
    const events: RecordedEvent[] = [];
    let after = from;
    while (events.length < maxCount) {
      const pageSize =
        types === undefined
          ? Math.min(readAllPageSize, maxCount - events.length + (after === undefined ? 0 : 1))
          : readAllPageSize;
      let seen = 0;
      let lastPosition: Position | undefined;
      const skipTo = after;
      await this.consume(this.client.readAll({ fromPosition: startAt(after), maxCount: pageSize }), (resolved) => {
        seen += 1;
        const event = resolved.event;
        if (!event) return true;
        lastPosition = event.position;
        if (skipTo !== undefined && event.position.commit <= skipTo) return true;
        if (!isSystemEvent(event) && (types === undefined || types.has(event.type)))
          events.push(toRecorded(event, event.position));
        return events.length < maxCount;
      });
      if (seen < pageSize || !lastPosition || lastPosition.commit === after) break;
      after = lastPosition.commit;
    }
    return events;
  }

  /**
   * The events of `types` after `from`, filtered on the server (see filtered-scan.ts), ending at
   * the head of the log as it was when the scan began. A server that goes quiet without saying it
   * caught up (older than 23.10) has the rest read by `readAll` from where the scan got.
   */
  async scanAll(
    from: bigint | undefined,
    maxCount: number,
    types: ReadonlySet<string>,
    scanning?: (position: bigint) => Promise<void>,
  ): Promise<ScannedEvents> {
    const head = await this.headPosition();
    if (head === undefined || (from !== undefined && from >= head) || maxCount <= 0 || types.size === 0)
      return { events: [], scannedTo: from };
    const scanned = await scanFiltered(
      (checkpointReached) =>
        this.client.subscribeToAll({
          fromPosition: startAt(from),
          filter: eventTypeFilter({
            regex: exactTypes(types),
            checkpointInterval: scanCheckpointInterval,
            checkpointReached: (_, position) => checkpointReached(position),
          }),
        }),
      {
        from,
        maxCount,
        head,
        scanning,
        quietMs: scanQuietMs,
        accept: (resolved) => {
          const event = resolved.event;
          return event && !isSystemEvent(event) && types.has(event.type)
            ? toRecorded(event, event.position)
            : undefined;
        },
      },
    );
    if (scanned.complete || scanned.events.length >= maxCount) return scanned;
    const rest = await this.pageAll(scanned.scannedTo, maxCount - scanned.events.length, types);
    return { events: [...scanned.events, ...rest], scannedTo: rest.at(-1)?.position ?? scanned.scannedTo };
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
