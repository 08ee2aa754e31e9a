import { createHash } from 'node:crypto';
import pg from 'pg';

/**
 * A statement with more parameters than this is left unnamed: it is a multi-row write whose text
 * grows with its rows, and naming each length would keep a plan per length on every connection.
 */
const MAX_PARAMETERS = 64;
/** The texts named at most, whatever the code sends: past it, a new text is left unnamed. */
const MAX_NAMES = 2000;

const names = new Map<string, string>();

/** A text's statement name: its digest, the same in every process and on every connection. */
function nameOf(text: string): string | undefined {
  let name = names.get(text);
  if (name === undefined && names.size < MAX_NAMES) {
    // 63 bytes is PostgreSQL's longest name; 160 bits of the digest keep texts apart.
    name = `q_${createHash('sha256').update(text).digest('hex').slice(0, 40)}`;
    names.set(text, name);
  }
  return name;
}

type QueryArguments = [config: unknown, values?: unknown, callback?: unknown];

/** The arguments of `query` with the statement named, where it is one to name. */
function named(args: QueryArguments): QueryArguments {
  const [config, values, callback] = args;
  const given = (typeof config === 'string' ? { text: config } : config) as
    (pg.QueryConfig & { submit?: unknown }) | null | undefined;
  // A cursor or a stream (it submits itself), a statement named by its caller: as given.
  if (!given || typeof given !== 'object' || typeof given.submit === 'function' || given.name !== undefined)
    return args;
  if (typeof given.text !== 'string') return args;
  const bound = Array.isArray(values) ? values : given.values;
  // Without values (`begin`, DDL), or a multi-row write: as given.
  if (!bound || bound.length === 0 || bound.length > MAX_PARAMETERS) return args;
  const name = nameOf(given.text);
  if (!name) return args;
  // The values move into the config; a callback stays where it was given (a pool passes its own third).
  return [{ ...given, values: bound, name }, Array.isArray(values) ? undefined : values, callback];
}

/**
 * A node-postgres client that has the server parse and plan each parameterized statement once per
 * connection (a named, prepared statement) instead of on every call, as postgres.js does by
 * default. Every statement of this service is a constant text but for its table names, so a
 * connection holds a few dozen. Statements without values (`begin`, `commit`, DDL) go as given.
 *
 * A prepared plan follows what the server changes under it (an index or a column added, the
 * search path), as long as the columns a statement answers stay the same: the statements name
 * their columns, so only a migration that changes a column's type or a function's result fails
 * them on the connections that prepared them before (docs/operations.md, "Prepared statements").
 */
export class PreparingClient extends pg.Client {}

const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
PreparingClient.prototype.query = function preparedQuery(this: pg.Client, ...args: unknown[]) {
  return query.apply(this, named(args as QueryArguments));
} as pg.Client['query'];
