import type * as MongoDriver from 'mongodb';
import type { MongoError } from 'mongodb';

/*
 * Is a failure of a projection the store's passing trouble (retry with backoff) or a bug
 * (stop, and say so)? Transient: the network, timeouts (a query past its maxTimeMS included), a
 * primary election or a node that is not (or no longer) the primary, a closed connection, a
 * locked SQLite file. Anything else — a TypeError, a failed assertion in a projection, a
 * duplicate key — is fatal: retrying a bug only repeats it. Pure: looks at the error only, never
 * at a connection.
 */

/**
 * Server codes of a not-primary node, an election or a shutdown (the driver's retryable set), and
 * of a query that ran past its time bound (a loaded or stuck server: the same query may pass later).
 */
const transientMongoCodes = new Set([
  6, // HostUnreachable
  7, // HostNotFound
  50, // MaxTimeMSExpired: the query's maxTimeMS (MONGO_QUERY_TIMEOUT_MS) ran out
  // WriteConcernFailed: a majority did not acknowledge in time (wtimeout); the batch is replayed from the checkpoint
  64,
  89, // NetworkTimeout
  91, // ShutdownInProgress
  133, // FailedToSatisfyReadPreference: no member answers for the read preference (an election under way)
  134, // ReadConcernMajorityNotAvailableYet: a member just started or elected has no majority snapshot yet
  189, // PrimarySteppedDown
  262, // ExceededTimeLimit: the same, as a mongos or a shard reports it
  9001, // SocketException
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11601, // Interrupted: an operator's killOp, or a session killed; the same operation may pass when sent again
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);

/**
 * The driver's MongoErrorLabel values that mean "try again". UnknownTransactionCommitResult: the
 * commit may or may not have applied; replaying the batch from the read checkpoint is harmless
 * either way (every write is guarded by its event's position), stopping the projection is not.
 */
const transientMongoLabels = [
  'RetryableWriteError',
  'TransientTransactionError',
  'UnknownTransactionCommitResult',
  'ResetPool',
  'PoolRequestedRetry',
];

/**
 * The driver, for its error classes: required only for an error whose name says it comes from
 * the driver (every MongoError's does), so the embedded default never loads it (25 MB).
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const mongoDriver = () => require('mongodb') as typeof MongoDriver;
const isMongoError = (error: object): error is MongoError => {
  const { name } = error as { name?: unknown };
  return typeof name === 'string' && name.startsWith('Mongo') && error instanceof mongoDriver().MongoError;
};

/**
 * @eventstore/db-client CommandError types: the node is unreachable, slow, or not the leader, or it
 * cancelled the call (a node stepping down or restarting ends its long-running calls, and the client
 * reconnects).
 */
const transientEsdbTypes = new Set(['unavailable', 'deadline-exceeded', 'timeout', 'not-leader', 'cancelled']);
/**
 * A node starting, catching up or overloaded refuses an append on the batch-append stream (every
 * append since server 21.10) with a status the client cannot unpack: an error of type `unknown`
 * carrying the server's words (KurrentDB Streams.BatchAppend.cs, NotHandled NotReady / TooBusy).
 */
const ESDB_UNKNOWN = 'unknown';
const notReadyOrBusy = /Server Is (Not Ready|Busy|Too Busy)/i;
/** gRPC status codes: CANCELLED, DEADLINE_EXCEEDED and UNAVAILABLE. */
const transientGrpcCodes = new Set([1, 4, 14]);
/** gRPC INTERNAL (13) is a server's bug, but for these, the transport's: an HTTP/2 stream reset or cut short. */
const GRPC_INTERNAL = 13;
const transportResets = [/RST_STREAM/, /Call ended without gRPC status/];

/**
 * Node system errors of a connection that failed, dropped or timed out, or a name that did not
 * resolve: a DNS hiccup, or a container's name while it is stopped or restarting (Docker's DNS
 * then answers "no such host", ENOTFOUND, until it is back).
 */
const transientSystemCodes = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOTFOUND',
]);

/**
 * PostgreSQL's SQLSTATEs of passing trouble: a connection that failed (class 08), a server out of
 * resources (53), shutting down or starting (57P01-57P03), a statement past its time bound (57014),
 * a serialization failure or a deadlock (40001, 40P01), a lock not available (55P03), a write
 * sent to a server that is read-only (25006: a standby the address still named after a failover;
 * the connection that met it is dropped, and the next one finds the new primary).
 */
const transientPostgresClasses = ['08', '53'];
const transientPostgresStates = new Set(['57P01', '57P02', '57P03', '57014', '40001', '40P01', '55P03', '25006']);
const isPostgresState = (code: string) => /^[0-9A-Z]{5}$/.test(code);
const transientPostgresState = (code: string) =>
  transientPostgresStates.has(code) || transientPostgresClasses.includes(code.slice(0, 2));

/**
 * node-postgres's own errors, which carry no code: a connection cut under a query, a pool that
 * could not connect in time, a client already broken.
 */
const transientPostgresMessages = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /^Client has encountered a connection error and is not queryable/,
  /^Client was closed and is not queryable/,
  /^Query read timeout/,
];

/** better-sqlite3's codes of a database another connection holds, extended codes included. */
const transientSqlitePrefixes = ['SQLITE_BUSY', 'SQLITE_LOCKED'];

/** How deep to follow `cause` when a transient error was wrapped. */
const maxCauseDepth = 5;

function isTransientMongoError(error: MongoError): boolean {
  const {
    MongoNetworkError,
    MongoServerSelectionError,
    MongoNotConnectedError,
    MongoOperationTimeoutError,
    MongoStalePrimaryError,
  } = mongoDriver();
  if (
    error instanceof MongoNetworkError ||
    error instanceof MongoServerSelectionError ||
    error instanceof MongoNotConnectedError ||
    error instanceof MongoOperationTimeoutError ||
    error instanceof MongoStalePrimaryError
  ) {
    return true;
  }
  // Every connection of the pool busy past waitQueueTimeoutMS (the class is not exported: its name).
  if (error.name === 'MongoWaitQueueTimeoutError') return true;
  if (transientMongoLabels.some((label) => error.hasErrorLabel(label))) return true;
  return typeof error.code === 'number' && transientMongoCodes.has(error.code);
}

function isTransientByShape(error: object): boolean {
  const { code, type } = error as { code?: unknown; type?: unknown };
  if (typeof type === 'string' && transientEsdbTypes.has(type)) return true;
  if (type === ESDB_UNKNOWN) {
    const { message } = error as { message?: unknown };
    if (typeof message === 'string' && notReadyOrBusy.test(message)) return true;
  }
  if (typeof code === 'number') {
    const { message } = error as { message?: unknown };
    const reset = code === GRPC_INTERNAL && typeof message === 'string' && transportResets.some((p) => p.test(message));
    return transientGrpcCodes.has(code) || reset;
  }
  if (typeof code === 'string') {
    if (transientSystemCodes.has(code) || transientSqlitePrefixes.some((prefix) => code.startsWith(prefix)))
      return true;
    return isPostgresState(code) && transientPostgresState(code);
  }
  const { message } = error as { message?: unknown };
  return typeof message === 'string' && transientPostgresMessages.some((pattern) => pattern.test(message));
}

/** True when `error` is a store's passing failure that a retry with backoff may get past. */
export function isTransientStoreError(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth <= maxCauseDepth; depth += 1) {
    if (typeof current !== 'object' || current === null) return false;
    if (isMongoError(current) ? isTransientMongoError(current) : isTransientByShape(current)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
