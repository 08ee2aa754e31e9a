/**
 * Runs once before every jest run: finds out which external adapters can be tested here and
 * publishes the answer through the environment the test workers inherit.
 *  - Redis: REDIS_URL, or the local default. Under CI=true an unreachable Redis fails the run:
 *    CI must exercise the Redis adapter, never skip it.
 *  - PostgreSQL: POSTGRES_URL, or the local default (user postgres, database test). Likewise
 *    required under CI=true. Each suite works in schemas of its own, so runs never share state.
 *  - MongoDB / EventStoreDB: MONGODB_URL / EVENTSTORE_URL, or a Docker engine for testcontainers.
 * It also makes the directory where service processes are listed while they run (TEST_SERVICE_PIDS).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

function reachable(url: string, defaultPort: number, timeoutMs = 1000): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname.replace(/^\[|\]$/g, ''), port: Number(port || defaultPort) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** A connection string as it may be printed: without its password. */
function redacted(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

function dockerAnswers(): boolean {
  try {
    execFileSync('docker', ['info', '--format', '{{.ServerVersion}}'], { stdio: 'pipe', timeout: 5000 });
    return true;
  } catch {
    return false;
  }
}

export default async function globalSetup(): Promise<void> {
  // Where the run's service processes are listed while they run (service-process.ts), for the teardown.
  process.env.TEST_SERVICE_PIDS = fs.mkdtempSync(path.join(os.tmpdir(), 'prs-services-'));
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  if (await reachable(redisUrl, 6379)) {
    process.env.TEST_REDIS_URL = redisUrl;
  } else if (process.env.CI === 'true') {
    throw new Error(`CI=true but Redis does not answer at ${redisUrl}: the Redis tests must run in CI`);
  } else {
    process.env.TEST_REDIS_SKIP = `Redis does not answer at ${redisUrl}`;
  }
  const postgresUrl = process.env.POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
  if (await reachable(postgresUrl, 5432)) {
    process.env.TEST_POSTGRES_URL = postgresUrl;
    // Where the run lists the schemas its servers use on PostgreSQL, for the teardown to drop.
    process.env.TEST_POSTGRES_REGISTRY = path.join(
      fs.mkdtempSync(path.join(os.tmpdir(), 'prs-pg-schemas-')),
      'schemas.txt',
    );
  } else if (process.env.CI === 'true') {
    throw new Error(
      `CI=true but PostgreSQL does not answer at ${redacted(postgresUrl)}: the PostgreSQL tests must run in CI`,
    );
  } else {
    process.env.TEST_POSTGRES_SKIP = `PostgreSQL does not answer at ${redacted(postgresUrl)}`;
  }
  const docker = !process.env.MONGODB_URL || !process.env.EVENTSTORE_URL ? dockerAnswers() : false;
  if (docker) process.env.TEST_DOCKER = '1';
  // Suites that need MongoDB transactions are declared skipped, with this reason, when the server
  // at MONGODB_URL is not a replica set (the testcontainers server always is one).
  if (process.env.MONGODB_URL) {
    const reason = await mongoWithoutTransactions(process.env.MONGODB_URL);
    if (reason) process.env.TEST_MONGODB_NO_TRANSACTIONS = reason;
  }
}

/** Why the MongoDB at `url` cannot run transactions, or undefined when it can (a replica set or a sharded cluster). */
async function mongoWithoutTransactions(url: string): Promise<string | undefined> {
  const { MongoClient } = await import('mongodb');
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 5000 });
  try {
    const hello = await client.db('admin').command({ hello: 1 });
    return hello.setName || hello.msg === 'isdbgrid' ? undefined : 'the MongoDB at MONGODB_URL is not a replica set';
  } catch {
    return undefined; // unreachable: the MongoDB suites fail on their own, and say why
  } finally {
    await client.close();
  }
}
