#!/usr/bin/env node
/**
 * Operator tools (docs/api.md "Shape": src/cli). Run as `npm run cli -- <command>`.
 * They work on the same configuration (environment) as the server.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ingestDirectoryEvents } from '../directory/ingest-directory-events';
import { ConfigError, loadConfig } from '../config/config';
import { withApplicationName } from '../config/postgres-application-name';
import { logAddress } from '../config/store-addresses';
import { DIRECTORY_STREAM, directoryBatchSchema } from '../directory/directory-events';
import { systemActor } from '../domain/event';
import { mintSessionToken } from '../infra/auth/session-verifier';
import { NoDevSecretsError, serverSigningSecret } from '../config/dev-secrets';
import { cliLogger } from './cli-logger';
import { projectedDigest } from './log-digest';
import { IMPERSONATION_MAX_LIFETIME_S, SESSION_MAX_LIFETIME_S } from '../domain/auth/session-token';
import { packageFile } from '../config/package-file';
import { openScratchReadDb } from '../infra/read-db';
import { readGenerations } from '../infra/read-generations';
import { ReadSide } from '../app/read-side';
import { Presets, SingleBar } from 'cli-progress';
import { openEventStore, openFileStore, openPersonalDataKeys } from '../app/services';
import { NoEventLogError } from '../ports/event-store';
import { openingPersonalData } from '../audit/personal-data-sealing';
import { ERASE_PERSON_HELP, erasePersonCommand } from './erase-person-command';
import { READ_MODEL_NAMES, type ReadModelName } from '../app/read-model-list';
import { RebuildJobs } from '../app/rebuild-jobs';
import { rebuildOverApi } from './rebuild-over-api';
import { isServiceUrl, SERVICE_URL_USAGE } from './service-api';
import { DomainError } from '../domain/errors';
import { sweepOrphans } from '../files/file-lifecycle';
import { zodFieldErrors } from '../api/validation';
import { AUDIT_USAGE, auditCommand } from './audit-command';
import { BACKUP_HELP, backupCommands } from './backup-command';

const USAGE = `usage: npm run cli -- <command> [options]

commands:
  dev-token --user <id> [--impersonator <id>] [--ttl <seconds>]
                         mint a bearer token for a user (not in production)
  import-directory <file.json>
                         append a directory batch {"events": [...]} (all or nothing)
  seed                   import the demo directory (demo/directory.json; not in production)
  audit events|history|access|verify [options]
                         the audit trail: events with filters, one resource's history,
                         who could see a resource at a time, the log's hash chain checked
                         (audit --help for the options)
  digest                 project the whole log afresh and print the read-model digest
  rebuild [--read-model <name>] [--api <url>]
                         project the whole log into a new generation of the read models (or one read
                         model alone), then switch every running service to it (blue/green: they keep
                         answering meanwhile); exits 1 when the rebuild failed or another one runs;
                         --api: asked of the service at <url> as a job (RESOURCES_OPERATOR_TOKEN, an
                         operator's own token, or DIRECTORY_SYNC_TOKEN), which runs it and reports it
                         in its metrics
  sweep-uploads          delete uploads no resource references after UPLOAD_ORPHAN_HOURS
  erase-person <userId>  destroy a person's key: their personal fields in events read as erased
  backup <DEST>          copy the event log (online, consistent) and the uploads into DEST, with a manifest
  restore <SRC>          verify the backup SRC and restore it into an empty DATA_DIR
  verify <SRC>           check a backup: integrity, events, last position, hash chain, read-model digest

every command takes --help
`;

/** `<command> --help`: the command's own usage line(s). */
const COMMAND_HELP: Record<string, string> = {
  'erase-person': ERASE_PERSON_HELP,
  'dev-token':
    'usage: npm run cli -- dev-token --user <id> [--impersonator <id>] [--ttl ' +
    '<seconds>]\n  mint a bearer token for a user (not in production)\n',
  'import-directory':
    'usage: npm run cli -- import-directory <file.json>\n  append a directory batch ' +
    '{"events": [...]} (all or nothing)\n',
  seed: 'usage: npm run cli -- seed\n  import the demo directory (demo/directory.json; not in production)\n',
  audit: AUDIT_USAGE,
  digest:
    'usage: npm run cli -- digest\n  project the whole log afresh (in memory, or in a scratch schema on PostgreSQL)\n' +
    '  and print the read-model digest\n',
  rebuild:
    'usage: npm run cli -- rebuild [--read-model <name>] [--api <url>]\n' +
    '  project the whole log into a new read-model ' +
    'generation, then switch every running service to it\n  (at a CPU priority 10 ' +
    "below the caller's, so the services keep their latency)\n" +
    `  --read-model: rebuild one read model alone (${READ_MODEL_NAMES.join(', ')}), the others carried over\n` +
    '  (embedded and PostgreSQL read models); prints progress on stderr, a JSON line at the end;\n' +
    '  exits 1 if it failed\n' +
    '  --api <url>: ask the running service at <url> instead (POST /internal/read-models/rebuild, with\n' +
    '  RESOURCES_OPERATOR_TOKEN, your token of OPERATOR_TOKENS, or DIRECTORY_SYNC_TOKEN as the operator\n' +
    '  credential): the job runs there, in its metrics and console;\n' +
    '  the JSON line at the end is the job as GET /internal/read-models/rebuild/{jobId} answers it\n',
  'sweep-uploads':
    'usage: npm run cli -- sweep-uploads\n  delete uploads no resource references after UPLOAD_ORPHAN_HOURS\n',
  ...BACKUP_HELP,
};

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const help = command === undefined ? undefined : COMMAND_HELP[command];
  if (help && (rest.includes('--help') || rest.includes('-h'))) {
    process.stdout.write(help);
    return 0;
  }
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  const loaded = loadConfig();
  // Named as the service's are: an operator tells a CLI's sessions apart in pg_stat_activity.
  const config = loaded.POSTGRES_URL
    ? { ...loaded, POSTGRES_URL: withApplicationName(loaded.POSTGRES_URL, `prs-cli-${command}-${process.pid}`) }
    : loaded;
  switch (command) {
    case 'dev-token':
      return devToken(rest, config);
    case 'import-directory':
      return importDirectory(rest[0], config);
    case 'seed':
      // The demo's users 1 to 11 carry roles (an auditor, community admins): loaded into a real
      // directory whose ids overlap, they would grant them to real accounts.
      if (config.NODE_ENV === 'production') {
        process.stderr.write('seed is not available in production: it loads the demo directory\n');
        return 2;
      }
      return importDirectory(demoDirectoryFile(), config);
    case 'audit':
      // An export like the API's answers: personal fields opened, or erased with their key.
      return auditCommand(rest, () =>
        openingPersonalData(openEventStore(config, { existingOnly: true }), () => openPersonalDataKeys(config)),
      );
    case 'erase-person':
      return erasePerson(rest, config);
    case 'digest':
      return digest(config);
    case 'rebuild':
      return rebuild(rest, config);
    case 'sweep-uploads':
      return sweepUploads(config);
    case 'backup':
    case 'restore':
    case 'verify':
      return backupCommands(command, rest, config);
    default:
      // No command, or one it does not know: a usage error (2), the usage on stderr; `help` asks for it (0).
      process.stderr.write(command === undefined ? 'no command given\n\n' : `unknown command '${command}'\n\n`);
      process.stderr.write(USAGE);
      return 2;
  }
}

type Config = ReturnType<typeof loadConfig>;

function erasePerson(args: string[], config: Config): Promise<number> {
  return erasePersonCommand(args, {
    events: () => openEventStore(config, { existingOnly: true }),
    keys: () => openPersonalDataKeys(config),
  });
}

/**
 * The log the configuration names, known to exist before anything else is opened beside it (a
 * scratch schema, read-model files): NoEventLogError where there is none.
 */
async function existingLog(config: Config) {
  const store = openEventStore(config, { existingOnly: true });
  try {
    await store.headPosition();
    return store;
  } catch (error) {
    await store.close().catch(() => undefined);
    throw error;
  }
}

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
  // The limits the service applies to a token it verifies: a token it would refuse is not minted.
  if (values.impersonator !== undefined && !/^[1-9][0-9]*$/.test(values.impersonator)) {
    process.stderr.write('--impersonator takes a positive integer user id\n');
    return 2;
  }
  const longest = values.impersonator === undefined ? SESSION_MAX_LIFETIME_S : IMPERSONATION_MAX_LIFETIME_S;
  if (values.ttl !== undefined && !(/^[1-9][0-9]*$/.test(values.ttl) && Number(values.ttl) <= longest)) {
    process.stderr.write(
      `--ttl takes whole seconds from 1 to ${longest} (${values.impersonator === undefined ? '7 days' : '1 hour, impersonating'})\n`,
    );
    return 2;
  }
  let secret: string | undefined;
  try {
    secret = serverSigningSecret(config);
  } catch (error) {
    if (!(error instanceof NoDevSecretsError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 1;
  }
  if (!secret) {
    process.stderr.write('AUTH_JWKS_URL is set: tokens come from the identity provider\n');
    return 2;
  }
  const token = await mintSessionToken(secret, {
    userId,
    ...(values.impersonator ? { impersonatorId: Number(values.impersonator) } : {}),
    ...(values.ttl ? { ttlSeconds: Number(values.ttl) } : {}),
  });
  // A token for a user the directory lacks is refused by the service (401): say so now.
  const store = openEventStore(config);
  try {
    const known = (await store.readStream(DIRECTORY_STREAM)).some(
      (event) => event.type === 'UserUpserted' && (event.data as { userId?: unknown }).userId === userId,
    );
    if (!known) {
      process.stderr.write(
        `warning: user ${userId} is not in the directory of ${logAddress(config)}; the service will answer 401 until it is (npm run seed loads the demo, given the service's store settings)\n`,
      );
    }
  } finally {
    await store.close();
  }
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
    process.stdout.write(
      `imported ${parsed.data.events.length} directory events (position ${position}) into ${logAddress(config)}\n`,
    );
  } finally {
    await store.close();
  }
  return 0;
}

/** A fresh projection of the whole log, on scratch read models: compare with GET /internal/read-models/digest. */
async function digest(config: Config): Promise<number> {
  const store = await existingLog(config);
  try {
    process.stdout.write(`${JSON.stringify(await projectedDigest(store, await openScratchReadDb(config)))}\n`);
  } finally {
    await store.close();
  }
  return 0;
}

/** How much lower than the services' the CPU priority of a rebuild is (see runInBackground). */
const REBUILD_NICENESS = 10;

/**
 * A rebuild is background work beside the services on the same machine: its main thread, where
 * the projections and SQLite run, gives way to them when they need the CPU, and runs as fast as
 * ever when they do not. On 2 cores under 50 connections of lists, their p99 during a rebuild was
 * 1.3-1.8x the quiet one at the same priority, 0.8-1.7x at +10. Answers the niceness it runs at.
 */
function runInBackground(): number {
  try {
    os.setPriority(Math.min(19, os.getPriority() + REBUILD_NICENESS));
  } catch {
    // Not permitted here (lowering one's own priority always is on Linux): run at the same one.
  }
  return os.getPriority();
}

/**
 * The rebuild's progress on stderr: a bar on a terminal; elsewhere (a CI log, a file) one line at
 * each tenth, so that a long rebuild is not silent until it ends. Both end at 100%.
 */
function rebuildProgress() {
  let total = 0;
  let last = 0;
  let eps = 0;
  if (process.stderr.isTTY) {
    const bar = new SingleBar(
      { format: 'rebuilding |{bar}| {percentage}% | {value}/{total} | {eps} events/s', stream: process.stderr },
      Presets.shades_classic,
    );
    let started = false;
    return {
      update(position: number, head: number, eventsPerSecond: number) {
        if (!started) bar.start(head, 0, { eps: 0 });
        started = true;
        total = head;
        bar.update(Math.min(position, head), { eps: eventsPerSecond });
      },
      done() {
        if (!started) return;
        bar.update(total);
        bar.stop();
      },
    };
  }
  let reportedTenth = -1;
  const line = (position: number) =>
    process.stderr.write(
      `rebuilding: ${total === 0 ? 100 : Math.floor((Math.min(position, total) / total) * 100)}% (${Math.min(position, total)}/${total} positions, ${eps} events/s)\n`,
    );
  return {
    update(position: number, head: number, eventsPerSecond: number) {
      total = head;
      last = position;
      eps = eventsPerSecond;
      const tenth = total === 0 ? 10 : Math.floor((Math.min(position, total) / total) * 10);
      if (tenth > reportedTenth && tenth < 10) {
        reportedTenth = tenth;
        line(position);
      }
    },
    done() {
      line(Math.max(last, total));
    },
  };
}

/**
 * Blue/green: projects the whole log into a new generation while the running services keep
 * answering from the current one, then switches them all to it.
 */
async function rebuild(args: string[], config: Config): Promise<number> {
  const { values } = parseArgs({ args, options: { 'read-model': { type: 'string' }, api: { type: 'string' } } });
  const readModel = values['read-model'];
  if (readModel !== undefined && !(READ_MODEL_NAMES as readonly string[]).includes(readModel)) {
    process.stderr.write(`--read-model must be one of ${READ_MODEL_NAMES.join(', ')}\n`);
    return 2;
  }
  if (values.api !== undefined) {
    if (!isServiceUrl(values.api)) {
      process.stderr.write(`${SERVICE_URL_USAGE}\n`);
      return 2;
    }
    // An operator's own token first: the service then knows which operator asked.
    const own = process.env.RESOURCES_OPERATOR_TOKEN;
    const directory = process.env.DIRECTORY_SYNC_TOKEN;
    if (!own && !directory) {
      process.stderr.write(
        '--api asks as an operator: set RESOURCES_OPERATOR_TOKEN to your token of OPERATOR_TOKENS, ' +
          "or DIRECTORY_SYNC_TOKEN to the service's directory token\n",
      );
      return 2;
    }
    return rebuildOverApi({
      url: values.api,
      credential: own ? { kind: 'operator', token: own } : { kind: 'directory', token: directory ?? '' },
      readModel,
      out: (line) => process.stdout.write(`${line}\n`),
      err: (line) => process.stderr.write(`${line}\n`),
    });
  }
  const niceness = runInBackground();
  const events = await existingLog(config);
  const logger = cliLogger();
  const generations = readGenerations(config);
  const side = await ReadSide.open({
    config,
    events,
    logger,
    generations,
    runners: () => ({ role: 'follow' }),
    // The remedy for a generation of another log: it is replaced, not served.
    acceptAnotherLog: true,
  });
  const progress = rebuildProgress();
  const began = performance.now();
  // The rebuild's time ends at the switch: after it the CLI only waits out the services' grace to
  // drop the replaced generation (read-side.ts), which says nothing of how fast the log was projected.
  let switchedAt: number | undefined;
  // The same jobs as the service's operator route, run here in the foreground.
  const jobs = new RebuildJobs(side, {
    switchHere: false,
    logger,
    observe: (job, p) => {
      if (p) progress.update(Number(p.position), Number(p.head), Math.round(p.eventsPerSecond));
      if (job.phase === 'switching') switchedAt ??= performance.now();
    },
  });
  try {
    let jobId: string;
    try {
      jobId = (await jobs.start(readModel === undefined ? undefined : [readModel as ReadModelName])).jobId;
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      process.stderr.write(`${error.message}\n`);
      return 1;
    }
    await jobs.settled();
    const job = jobs.get(jobId);
    if (job?.outcome !== 'succeeded') {
      process.stderr.write(`rebuild failed: ${job?.error ?? 'unknown'}\n`);
      process.stdout.write(`${JSON.stringify({ rebuilt: false, jobId, error: job?.error ?? null })}\n`);
      return 1;
    }
    // The last report may stop short of the head (the head is a position, the last event projected before it).
    progress.done();
    const seconds = ((switchedAt ?? performance.now()) - began) / 1000;
    const generation = await generations.current();
    process.stdout.write(
      `${JSON.stringify({
        rebuilt: true,
        jobId,
        readModels: job.readModels,
        generation,
        events: Number(job.progress.position),
        eventsApplied: job.progress.eventsApplied,
        seconds: Number(seconds.toFixed(2)),
        niceness,
      })}\n`,
    );
  } finally {
    await side.close();
    await events.close();
  }
  return 0;
}

/** The orphan sweeper once, now (the server also runs it every hour). */
async function sweepUploads(config: Config): Promise<number> {
  const logger = cliLogger();
  const eventStore = await existingLog(config);
  // Follows the read models a running service projects (or catches them up if none runs).
  const side = await ReadSide.open({
    config,
    events: eventStore,
    logger,
    generations: readGenerations(config),
    runners: () => ({ role: 'follow' }),
  });
  const fileStore = await openFileStore(config);
  try {
    const { readModels, stores } = side.current;
    const { deleted } = await sweepOrphans({ eventStore, fileStore, stores, readModels, config }, new Date());
    process.stdout.write(`${JSON.stringify({ deleted })}\n`);
  } finally {
    await side.close();
    await Promise.allSettled([eventStore.close(), fileStore.close()]);
  }
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    // fetch's own message is "fetch failed": why (a refused connection, a name not found) is its cause.
    const cause =
      error instanceof Error && error.message === 'fetch failed' && error.cause instanceof Error
        ? `: ${error.cause.message}`
        : '';
    process.stderr.write(`${error instanceof Error ? error.message + cause : String(error)}\n`);
    // A malformed command line (util.parseArgs: unknown option, missing value) is a usage error,
    // and an invalid configuration one too, as the server exits on it: nothing was run.
    const code = (error as { code?: unknown } | null)?.code;
    const usage =
      error instanceof ConfigError ||
      error instanceof NoEventLogError ||
      (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS'));
    process.exit(usage ? 2 : 1);
  },
);
