import { parseArgs } from 'node:util';
import { SingleBar } from 'cli-progress';
import type { z } from 'zod';
import {
  auditAccessQuery,
  auditEventsQuery,
  auditResourcePathParams,
  auditUserPathParams,
} from '../audit/audit-schemas';
import { zodFieldErrors } from '../api/validation';
import { AUDIT_PAGE_MAX } from '../audit/audit-queries';
import { decodeCursor } from '../audit/audit-log';
import { DomainError } from '../domain/errors';
import type { EventStore } from '../ports/event-store';
import { ApiRefusal, apiSource, storeSource, type AuditSource } from './audit-sources';
import { isServiceUrl, SERVICE_URL_USAGE } from './service-api';
import { formatTable } from './table';
import { AUDIT_VERIFY_USAGE, auditVerify } from './audit-verify-command';

/**
 * `audit events|history|access|access-of`: the audit API's reads, with the same filters and the same
 * JSON records (one per line), or a table. From the stores (an operator on the machine: reads
 * recorded as the platform, `audit-0`), or with `--api <url>` through the HTTP API as the auditor
 * whose credential RESOURCES_TOKEN or RESOURCES_API_KEY holds (reads recorded under that auditor;
 * no store credentials needed).
 */
export const AUDIT_USAGE = `usage: npm run cli -- audit <events|history|access|access-of|verify> [options]

  audit events [--stream <id>] [--user <id>] [--credential session|apiKey|system] [--api-key <id>]
               [--type <EventType>] [--from <ISO time>] [--to <ISO time>] [--after <cursor>]
               [--limit <n>] [--format jsonl|table] [--no-progress]
      the event log in order with its metadata; every matching event unless --limit is given
      (a progress bar on stderr when it is a terminal)
  audit history <resourceId> [--format jsonl|table]
      every change of one resource, one step per command: who, when, credential, what changed
  audit access <resourceId> [--at <ISO time>] [--format jsonl|table]
      who could see the resource at that moment (default now), through which view and why
  audit access-of <userId> [--at <ISO time>] [--format jsonl|table]
      every resource the person could see at that moment (default now), by view, and why
${AUDIT_VERIFY_USAGE}
  audit --stream|--user|--type ... (no subcommand) is audit events.

  --api <url> (or RESOURCES_API_URL): read through the service's HTTP API instead of the stores, as
      the auditor whose bearer token is in RESOURCES_TOKEN (or API key in RESOURCES_API_KEY); the
      API records every read under that auditor. verify reads the stores and has no --api.
`;

const FORMAT = { type: 'string', default: 'jsonl' } as const;
const HELP = { type: 'boolean', short: 'h' } as const;

class UsageError extends Error {}

type Out = { write(text: string): void };

export async function auditCommand(
  args: readonly string[],
  open: () => EventStore,
  out: Out = process.stdout,
): Promise<number> {
  const { api, rest: withoutApi } = takeApi(args);
  const [first, ...rest] = withoutApi;
  const sub = first === undefined || first.startsWith('-') ? 'events' : first;
  const subArgs = first === undefined || first.startsWith('-') ? [...withoutApi] : rest;
  if (sub === 'help' || subArgs.includes('--help') || subArgs.includes('-h')) {
    out.write(AUDIT_USAGE);
    return 0;
  }
  try {
    const apiUrl = api ?? (process.env.RESOURCES_API_URL || undefined);
    const source = (): AuditSource => (apiUrl ? apiSourceOf(apiUrl) : storeSource(open()));
    switch (sub) {
      case 'events':
        return await withSource(source, (s) => events(subArgs, s, out));
      case 'history':
        return await withSource(source, (s) => history(subArgs, s, out));
      case 'access':
        return await withSource(source, (s) => access(subArgs, s, out));
      case 'access-of':
        return await withSource(source, (s) => accessOf(subArgs, s, out));
      case 'verify':
        if (apiUrl) throw new UsageError('verify reads the stores themselves: run it without --api');
        return await withStore(open, (store) => auditVerify(subArgs, store, out));
      default:
        throw new UsageError(`unknown audit command ${sub}`);
    }
  } catch (error) {
    if (error instanceof ApiRefusal) {
      process.stderr.write(`${error.message}\n`);
      return 1;
    }
    if (error instanceof UsageError || error instanceof DomainError || isParseArgsError(error)) {
      const fields =
        error instanceof DomainError && error.errors.length > 0
          ? error.errors.map((e) => `${e.field}: ${e.message}`)
          : [error.message];
      process.stderr.write(`${fields.join('\n')}\n\n${AUDIT_USAGE}`);
      return 2;
    }
    throw error;
  }
}

const isParseArgsError = (error: unknown): error is Error => {
  const code = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS');
};

/** `--api <url>` or `--api=<url>`, wherever it stands, taken out of the subcommand's arguments. */
function takeApi(args: readonly string[]): { api: string | undefined; rest: string[] } {
  const rest: string[] = [];
  let api: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--api') {
      api = args[++i];
      if (api === undefined) throw new UsageError('--api needs the service URL');
    } else if (arg.startsWith('--api=')) api = arg.slice('--api='.length);
    else rest.push(arg);
  }
  return { api, rest };
}

function apiSourceOf(url: string): AuditSource {
  if (!isServiceUrl(url)) throw new UsageError(SERVICE_URL_USAGE);
  const token = process.env.RESOURCES_TOKEN || undefined;
  const apiKey = process.env.RESOURCES_API_KEY || undefined;
  if (!token && !apiKey) throw new UsageError('--api reads as an auditor: set RESOURCES_TOKEN or RESOURCES_API_KEY');
  return apiSource(url, { token, apiKey });
}

async function withSource(open: () => AuditSource, run: (source: AuditSource) => Promise<number>): Promise<number> {
  const source = open();
  try {
    return await run(source);
  } finally {
    await source.close();
  }
}

async function withStore(open: () => EventStore, run: (store: EventStore) => Promise<number>): Promise<number> {
  const store = open();
  try {
    return await run(store);
  } finally {
    await store.close();
  }
}

/** The API's query schema checks the CLI's flags too; a bad one is named by its flag. */
function parseFlags<S extends z.ZodType>(
  schema: S,
  input: Record<string, unknown>,
  flagOf: Record<string, string>,
): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const errors = zodFieldErrors(result.error).map((e) => ({ ...e, field: `--${flagOf[e.field] ?? e.field}` }));
  throw new DomainError('validation', 'invalid options', errors);
}

function formatOf(value: string | undefined): 'jsonl' | 'table' {
  if (value === 'jsonl' || value === 'table') return value;
  throw new UsageError(`--format must be jsonl or table, not ${String(value)}`);
}

const defined = (o: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

async function events(args: string[], source: AuditSource, out: Out): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      stream: { type: 'string' },
      user: { type: 'string' },
      credential: { type: 'string' },
      'api-key': { type: 'string' },
      type: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      after: { type: 'string' },
      limit: { type: 'string' },
      format: FORMAT,
      'no-progress': { type: 'boolean' },
      help: HELP,
    },
  });
  const format = formatOf(values.format);
  const query = parseFlags(
    auditEventsQuery,
    defined({
      stream: values.stream,
      userId: values.user,
      credential: values.credential,
      apiKeyId: values['api-key'],
      type: values.type,
      from: values.from,
      to: values.to,
      after: values.after,
    }),
    { userId: 'user', apiKeyId: 'api-key' },
  );
  let remaining = Infinity;
  if (values.limit !== undefined) {
    if (!/^[1-9][0-9]{0,9}$/.test(values.limit)) throw new UsageError('--limit must be a positive integer');
    remaining = Number(values.limit);
  }
  const { after: start, format: _format, ...filter } = query;
  await source.record('cli audit events', { ...query });

  const progress = new TimeProgress(values['no-progress'] !== true && process.stderr.isTTY === true, filter);
  const rows: string[][] = [];
  // Checked here whatever the source: a malformed --after is a usage error, not an API refusal.
  if (start !== undefined) decodeCursor(start, '--after');
  let after = start;
  try {
    for (;;) {
      const page = await source.eventsPage(filter, after, Math.min(AUDIT_PAGE_MAX, remaining));
      for (const e of page.items) {
        if (format === 'jsonl') out.write(`${JSON.stringify(e)}\n`);
        else {
          const a = e.metadata.actor;
          const who = `${a.userId} ${a.credential}${a.apiKeyId ? ` key ${a.apiKeyId}` : ''}${a.impersonatorId ? ` for ${a.impersonatorId}` : ''}`;
          rows.push([e.position, e.metadata.at, e.streamId, e.type, who, e.metadata.correlationId]);
        }
      }
      remaining -= page.items.length;
      progress.update(page.items.at(-1)?.metadata.at, page.items.length, page.hasMore && remaining > 0);
      if (!page.hasMore || remaining <= 0 || page.next === undefined) break;
      after = page.next;
    }
  } finally {
    progress.stop();
  }
  if (format === 'table') out.write(formatTable(['position', 'at', 'stream', 'type', 'actor', 'correlation id'], rows));
  return 0;
}

/**
 * Progress of a long export, measured in time covered: events carry their time, so the share of
 * the span from the first event (or --from) to --to (or now) is known whatever the store's
 * positions look like. Shown only on a terminal and only once a second page is needed.
 */
class TimeProgress {
  private bar: SingleBar | undefined;
  private start: number | undefined;
  private readonly end: number;
  private count = 0;

  constructor(
    private readonly enabled: boolean,
    filter: { readonly from?: string; readonly to?: string },
  ) {
    this.start = filter.from === undefined ? undefined : Date.parse(filter.from);
    this.end = filter.to === undefined ? Date.now() : Date.parse(filter.to);
  }

  update(lastAt: string | undefined, items: number, more: boolean): void {
    this.count += items;
    if (!this.enabled) return;
    const at = lastAt === undefined ? undefined : Date.parse(lastAt);
    this.start ??= at;
    if (!this.bar && more) {
      this.bar = new SingleBar({
        stream: process.stderr,
        format: 'audit events [{bar}] {percentage}% | {count} events',
        hideCursor: true,
      });
      this.bar.start(100, 0, { count: 0 });
    }
    if (!this.bar) return;
    const span = this.end - (this.start ?? this.end);
    const done =
      at === undefined || span <= 0 ? 0 : Math.min(100, Math.floor(((at - (this.start ?? at)) / span) * 100));
    this.bar.update(more ? done : 100, { count: this.count });
  }

  stop(): void {
    this.bar?.stop();
  }
}

function resourceIdOf(positionals: string[]): number {
  const [id, ...extra] = positionals;
  if (id === undefined || extra.length > 0) throw new UsageError('give one resource id');
  return parseFlags(auditResourcePathParams, { id }, { id: 'resourceId' }).id;
}

async function history(args: string[], source: AuditSource, out: Out): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { format: FORMAT, help: HELP } });
  const format = formatOf(values.format);
  const id = resourceIdOf(positionals);
  await source.record('cli audit history', { id });
  const json = await source.history(id);
  if (!json) {
    process.stderr.write(`resource ${id} has no history\n`);
    return 1;
  }
  if (format === 'jsonl') {
    for (const step of json) out.write(`${JSON.stringify(step)}\n`);
    return 0;
  }
  const rows = json.flatMap((s) =>
    s.changes.map((c, i) =>
      i === 0
        ? [s.at, `${s.actor.userId} ${s.actorName ?? ''}`.trim(), credentialOf(s.actor), s.correlationId, c.description]
        : ['', '', '', '', c.description],
    ),
  );
  out.write(formatTable(['at', 'who', 'credential', 'correlation id', 'change'], rows));
  return 0;
}

const credentialOf = (a: { credential: string; apiKeyId?: number; impersonatorId?: number }) =>
  `${a.credential}${a.apiKeyId ? ` ${a.apiKeyId}` : ''}${a.impersonatorId ? ` (impersonated by ${a.impersonatorId})` : ''}`;

async function access(args: string[], source: AuditSource, out: Out): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { at: { type: 'string' }, format: FORMAT, help: HELP },
  });
  const format = formatOf(values.format);
  const id = resourceIdOf(positionals);
  const query = parseFlags(auditAccessQuery, defined({ at: values.at }), {});
  const at = query.at === undefined ? new Date() : new Date(query.at);
  await source.record('cli audit access', { id, at: at.toISOString() });
  const json = await source.access(id, at);
  if (!json) {
    process.stderr.write(`resource ${id} has no history\n`);
    return 1;
  }
  if (format === 'jsonl') {
    out.write(`${JSON.stringify(json)}\n`);
    return 0;
  }
  out.write(`resource ${id} at ${json.at}: ${json.status}\n`);
  const rows = json.views.flatMap((v) =>
    v.users.map((u) => [
      v.communityId === null ? `project-wide (${v.viewKey})` : `${v.communityName ?? ''} (${v.viewKey})`,
      `${v.governedBy} ${v.effectivePrivacyLevel}`,
      `${u.userId} ${u.name}`,
      u.reasons.map((r) => r.description).join('; '),
    ]),
  );
  out.write(formatTable(['view', 'level', 'user', 'why'], rows));
  return 0;
}

async function accessOf(args: string[], source: AuditSource, out: Out): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { at: { type: 'string' }, format: FORMAT, help: HELP },
  });
  const format = formatOf(values.format);
  const [userId, ...extra] = positionals;
  if (userId === undefined || extra.length > 0) throw new UsageError('give one user id');
  const id = parseFlags(auditUserPathParams, { id: userId }, { id: 'userId' }).id;
  const query = parseFlags(auditAccessQuery, defined({ at: values.at }), {});
  const at = query.at === undefined ? new Date() : new Date(query.at);
  await source.record('cli audit access-of', { id, at: at.toISOString() });
  const json = await source.accessOf(id, at);
  if (!json) {
    process.stderr.write(`user ${id} is not in the directory\n`);
    return 1;
  }
  if (format === 'jsonl') {
    out.write(`${JSON.stringify(json)}\n`);
    return 0;
  }
  out.write(`user ${id} ${json.name ?? ''} at ${json.at}: ${json.account}\n`);
  const rows = json.views.flatMap((v) =>
    v.resources.map((r) => [
      `project ${v.projectId}${v.communityId === null ? '' : ` from ${v.communityName ?? ''}`} (${v.viewKey})`,
      `${r.resourceId} ${r.name}`,
      `${r.governedBy} ${r.effectivePrivacyLevel}`,
      r.reasons.map((reason) => reason.description).join('; '),
    ]),
  );
  out.write(formatTable(['view', 'resource', 'level', 'why'], rows));
  return 0;
}
