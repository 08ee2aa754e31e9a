/*
 * The server's statement_timeout answers a slow statement, but not one whose answer never comes
 * back: across a cut network (a link down, a host gone) nothing resets the connection, and a
 * statement would wait for the kernel to give up, a quarter of an hour. Each pool also bounds its
 * statements on the client (node-postgres's query_timeout), a little past the server's bound so
 * that the server's own answer (57014) comes first whenever the server is there to give it.
 */

/** How far past the server's bound the client gives a statement up. */
export const CLIENT_BOUND_MARGIN_MS = 1000;

/**
 * node-postgres's error for a statement given up on the client: its connection is still inside
 * that statement (the answer may yet come), so it is never handed on, and no rollback is sent on
 * it (it would queue behind the statement): it is dropped.
 */
export const isGivenUp = (error: unknown): boolean =>
  error instanceof Error && error.message.startsWith('Query read timeout');

/**
 * The bounds every pool of the service puts on its connections, from one statement bound
 * (POSTGRES_STATEMENT_TIMEOUT_MS): the server cancels a statement past it (57014, transient: a
 * 503) and rolls back a transaction left idle past it (a process paused or cut off mid-batch
 * would otherwise hold its locks), the client gives a statement up a little later (a cut network
 * never answers), and a new connection is waited for no longer.
 */
export function statementBounds(timeoutMs: number): {
  statement_timeout: number;
  query_timeout: number;
  idle_in_transaction_session_timeout: number;
  connectionTimeoutMillis: number;
} {
  return {
    statement_timeout: timeoutMs,
    query_timeout: timeoutMs + CLIENT_BOUND_MARGIN_MS,
    idle_in_transaction_session_timeout: Math.max(timeoutMs, 5000),
    connectionTimeoutMillis: Math.max(timeoutMs, 2000),
  };
}

/** A readiness probe's error when the server did not answer in its time: transient (a 503). */
export const notAnsweredInTime = (): Error =>
  Object.assign(new Error('PostgreSQL did not answer in time'), { code: 'ETIMEDOUT' });
