#!/usr/bin/env node
/**
 * Operator tools (DESIGN.md "Shape": src/cli). Run as `npm run cli -- <command>`.
 * They work on the same configuration (environment) as the server.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ingestDirectoryEvents } from '../commands/ingest-directory-events';
import { loadConfig } from '../config';
import { directoryBatchSchema } from '../domain/directory/directory-events';
import { systemActor } from '../domain/event';
import { mintSessionToken } from '../infra/auth/session-verifier';
import { resolveSecrets } from '../infra/dev-secrets';
import type { RecordedEvent } from '../infra/event-store/event-store';
import { createLogger } from '../infra/logger';
import { packageFile } from '../infra/package-file';
import { MemoryReadStore } from '../infra/read-store/memory-read-store';
import { allProjections } from '../projections/all-projections';
import { ProjectionRunner } from '../projections/projection-runner';
import { readModelDigest } from '../projections/read-model-digest';
import { openEventStore, openFileStore, openReadDb, openReadModelStores, openReadStore } from '../services';
import { sweepOrphans } from '../commands/file-lifecycle';
import { ReadModels } from '../projections/read-models';
import { zodFieldErrors } from '../api/validation';

const USAGE = `usage: npm run cli -- <command> [options]

commands:
  dev-token --user <id> [--impersonator <id>] [--ttl <seconds>]
                         mint a bearer token for a user (not in production)
  import-directory <file.json>
                         append a directory batch {"events": [...]} (all or nothing)
  seed                   import the demo directory (demo/directory.json)
  audit [--stream <id>] [--user <id>] [--type <EventType>]
                         print the event history with its metadata, one JSON line per event
  digest                 project the whole log afresh and print the read-model digest
  rebuild                drop the MongoDB read models and project the log again
  sweep-uploads          delete uploads no resource references after UPLOAD_ORPHAN_HOURS
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const config = loadConfig();
  switch (command) {
    case 'dev-token':
      return devToken(rest, config);
    case 'import-directory':
      return importDirectory(rest[0], config);
    case 'seed':
      return importDirectory(demoDirectoryFile(), config);
    case 'audit':
      return audit(rest, config);
    case 'digest':
      return digest(config);
    case 'rebuild':
      return rebuild(config);
    case 'sweep-uploads':
      return sweepUploads(config);
    default:
      process.stderr.write(USAGE);
      return command === undefined || command === 'help' ? 0 : 2;
  }
}

type Config = ReturnType<typeof loadConfig>;

function demoDirectoryFile(): string {
  const file = packageFile(path.join('demo', 'directory.json'));
  if (!file) throw new Error('demo/directory.json not found');
  return file;
}

async function devToken(args: string[], config: Config): Promise<number> {
  if (config.NODE_ENV === 'production') {
    process.stderr.write('dev-token is not available in production\n');
    return 2;
  }
  const { values } = parseArgs({
    args,
    options: { user: { type: 'string' }, impersonator: { type: 'string' }, ttl: { type: 'string' } },
  });
  const userId = Number(values.user);
  if (!Number.isInteger(userId) || userId <= 0) {
    process.stderr.write('--user <positive integer id> is required\n');
    return 2;
  }
  const secrets = resolveSecrets(config);
  if (!secrets.jwtSecret) {
    process.stderr.write('AUTH_JWKS_URL is set: tokens come from the identity provider\n');
    return 2;
  }
  const token = await mintSessionToken(secrets.jwtSecret, {
    userId,
    ...(values.impersonator ? { impersonatorId: Number(values.impersonator) } : {}),
    ...(values.ttl ? { ttlSeconds: Number(values.ttl) } : {}),
  });
  process.stdout.write(`${token}\n`);
  return 0;
}

async function importDirectory(file: string | undefined, config: Config): Promise<number> {
  if (!file) {
    process.stderr.write('import-directory <file.json>\n');
    return 2;
  }
  const parsed = directoryBatchSchema.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')));
  if (!parsed.success) {
    for (const e of zodFieldErrors(parsed.error)) process.stderr.write(`${e.field}: ${e.message}\n`);
    return 1;
  }
  const store = openEventStore(config);
  try {
    const position = await ingestDirectoryEvents(store, parsed.data, {
      actor: systemActor,
      correlationId: `cli-import-${Date.now()}`,
      at: new Date().toISOString(),
    });
    process.stdout.write(`imported ${parsed.data.events.length} directory events (position ${position})\n`);
  } finally {
    await store.close();
  }
  return 0;
}

async function audit(args: string[], config: Config): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { stream: { type: 'string' }, user: { type: 'string' }, type: { type: 'string' } },
  });
  const store = openEventStore(config);
  const keep = (e: RecordedEvent) =>
    (!values.stream || e.streamId === values.stream) &&
    (!values.user || e.metadata.actor.userId === Number(values.user)) &&
    (!values.type || e.type === values.type);
  try {
    let from: bigint | undefined;
    for (;;) {
      const batch = await store.readAll(from, 1000);
      for (const e of batch.filter(keep)) {
        process.stdout.write(
          `${JSON.stringify({ position: e.position.toString(), stream: e.streamId, revision: e.revision.toString(), type: e.type, data: e.data, metadata: e.metadata })}\n`,
        );
      }
      if (batch.length < 1000) break;
      from = batch.at(-1)?.position;
    }
  } finally {
    await store.close();
  }
  return 0;
}

async function digest(config: Config): Promise<number> {
  const store = openEventStore(config);
  const readStore = new MemoryReadStore();
  const runner = new ProjectionRunner(store, readStore, allProjections, createLogger('error'));
  try {
    await runner.start();
    const result = await readModelDigest(readStore, allProjections);
    process.stdout.write(`${JSON.stringify({ checkpoint: runner.checkpoint?.toString() ?? null, ...result })}\n`);
  } finally {
    await runner.stop();
    await store.close();
  }
  return 0;
}

async function rebuild(config: Config): Promise<number> {
  if (!config.MONGODB_URL) {
    process.stdout.write(
      'the embedded read store lives in the server process and is rebuilt at every start;\n' +
        'rebuild a running server with POST /internal/read-models/rebuild\n',
    );
    return 0;
  }
  const store = openEventStore(config);
  const readStore = await openReadStore(config);
  const runner = new ProjectionRunner(store, readStore, allProjections, createLogger('error'));
  try {
    await runner.rebuild();
    const result = await readModelDigest(readStore, allProjections);
    process.stdout.write(`${JSON.stringify({ rebuilt: true, checkpoint: runner.checkpoint?.toString() ?? null, ...result })}\n`);
  } finally {
    await runner.stop();
    await Promise.allSettled([store.close(), readStore.close()]);
  }
  return 0;
}

/** The orphan sweeper once, now (the server also runs it every hour). */
async function sweepUploads(config: Config): Promise<number> {
  const logger = createLogger('error');
  const eventStore = openEventStore(config);
  const readDb = await openReadDb(config);
  const stores = await openReadModelStores(readDb);
  const readModels = new ReadModels(eventStore, stores.projections, logger);
  const fileStore = await openFileStore(config);
  try {
    await readModels.start();
    const { deleted } = await sweepOrphans({ eventStore, fileStore, files: stores.files, readModels, config }, new Date());
    process.stdout.write(`${JSON.stringify({ deleted })}\n`);
  } finally {
    await readModels.stop();
    await Promise.allSettled([eventStore.close(), fileStore.close(), readDb.kind === 'sqlite' ? readDb.sqlite.close() : readDb.mongo.close()]);
  }
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
