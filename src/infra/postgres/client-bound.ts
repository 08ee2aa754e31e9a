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
