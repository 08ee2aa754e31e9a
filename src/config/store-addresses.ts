import path from 'node:path';
import type { Config } from './config';
import { connectionStringParts } from './connection-string';

/**
 * Where a configuration keeps its stores, as a person reads it: no user, no password, no query
 * (a connection string may carry a password in either). What the CLI and a failed start name, so
 * that a command run with another terminal's settings says which store it worked on.
 */

/** `scheme://host[:port][,host…][/path]` of a connection string the configuration accepted. */
export function addressOf(connectionString: string): string {
  const { scheme, hosts, path: where } = connectionStringParts(connectionString);
  return `${scheme}://${hosts}${where}`;
}

/** Where the event log is. */
export function logAddress(config: Config): string {
  if (config.POSTGRES_URL) return `PostgreSQL ${addressOf(config.POSTGRES_URL)}, schema ${config.POSTGRES_SCHEMA}`;
  if (config.EVENTSTORE_URL) return `EventStoreDB ${addressOf(config.EVENTSTORE_URL)}`;
  return `the embedded store in ${path.resolve(config.DATA_DIR)}`;
}

/** Every store the configuration names, one phrase each. */
export function storeAddresses(config: Config): string {
  const stores = [`the event log: ${logAddress(config)}`];
  if (config.MONGODB_URL) stores.push(`the read models and files: MongoDB ${addressOf(config.MONGODB_URL)}`);
  if (config.REDIS_URL) stores.push(`caches and rate limits: Redis ${addressOf(config.REDIS_URL)}`);
  return stores.join('; ');
}
