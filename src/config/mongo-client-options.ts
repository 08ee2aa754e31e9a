import type { MongoClientOptions } from 'mongodb';

/**
 * Time bounds of every MongoDB client this service opens (read models, GridFS). The driver's own
 * defaults let an outage hang a request or readiness: 30 s of server selection, and no bound on
 * an operation.
 *
 * Not `timeoutMS` (client-side operation timeout): the Node driver introduced it in 6.11 as an
 * experimental option (its docs, "Limit Server Execution Time"), but in the driver this service
 * runs (mongodb 7.9.0) every `timeoutMS` option is marked deprecated with "has no effect", no
 * client-side timeout context is ever created (TimeoutContext.create), and `withTransaction`
 * retries for its fixed 120 s whatever `timeoutMS` says. A bound given there would only seem to
 * be one: the server-side bounds below and the read models' own transaction loop
 * (MongoReadDb.transaction, TRANSACTION_RETRY_MS) are the bounds that hold.
 */

/** The default of MONGO_QUERY_TIMEOUT_MS: the server-side bound (`maxTimeMS`) of every read. */
export const DEFAULT_MONGO_QUERY_TIMEOUT_MS = 5000;

/** How long finding a server may take before an operation fails (the driver's default is 30 s). */
export const MONGO_SERVER_SELECTION_TIMEOUT_MS = 5000;

/**
 * How long opening a connection may take (the driver's default is 30 s): across a cut network a
 * retried operation would otherwise wait that long for its new connection.
 */
export const MONGO_CONNECT_TIMEOUT_MS = 3000;

/** The longest a write may wait on the server: a transaction's commit and its majority write concern. */
export const MONGO_WRITE_TIMEOUT_MS = 10_000;

/** Margin of the socket backstop over the longest server-side bound, so the server's own error wins. */
const SOCKET_MARGIN_MS = 2000;

/**
 * The client options: bounded server selection, connection and wait for a pooled connection, and
 * a socket timeout as a backstop for a connection that died without a word (no reset, no answer),
 * which no server-side bound can end. The backstop is above every bound the server applies
 * (reads' `maxTimeMS`, a commit's `maxCommitTimeMS` and `wtimeoutMS`), so it never cuts short an
 * operation the server still runs.
 */
export function mongoClientOptions(queryTimeoutMs: number): MongoClientOptions {
  return {
    serverSelectionTimeoutMS: MONGO_SERVER_SELECTION_TIMEOUT_MS,
    connectTimeoutMS: MONGO_CONNECT_TIMEOUT_MS,
    // An operation waiting for a free connection of the pool (the driver's default: for ever) waits
    // no longer than a read may run.
    waitQueueTimeoutMS: queryTimeoutMs,
    socketTimeoutMS: Math.max(queryTimeoutMs, MONGO_WRITE_TIMEOUT_MS) + SOCKET_MARGIN_MS,
  };
}
