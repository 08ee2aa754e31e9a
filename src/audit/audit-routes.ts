import type { Response } from 'express';
import { accessJson, auditEventJson, historyStepJson, personAccessJson } from './audit-json';
import { accessCsv, eventsCsv, historyCsv, personAccessCsv } from './audit-csv';
import { openPersonalData } from './personal-data';
import type { PersonalDataKeys } from '../ports/personal-data-keys';
import { readAuditPage, readResourceHistory, reviewAccessAt, reviewPersonAccessAt } from './audit-queries';
import { recordAuditRead } from './record-audit-read';
import { stampOf } from '../commands/request-info';
import type { AuditFilter } from './audit-log';
import { assertAuditor, decodeCursor, encodeCursor } from './audit-log';
import { notFound } from '../domain/errors';
import type { RequestInfo } from '../commands/request-info';
import type { DirectoryReader } from '../directory/directory-reader';
import type { EventStore } from '../ports/event-store';
import type { EventCatalog } from '../domain/event-upcasting';
import { routeGroup } from '../api/route-declaration';
import type { IntegrityRouteDeps } from './integrity-route';
import { integrityRoute } from './integrity-route';
import {
  auditAccessQuery,
  auditEventPageSchema,
  auditEventsQuery,
  auditHistoryQuery,
  auditResourcePathParams,
  auditUserPathParams,
  csvContent,
  personAccessSchema,
  resourceAccessSchema,
  resourceHistorySchema,
} from './audit-schemas';

const DEFAULT_LIMIT = 100;

/** What the audit routes read (the log, the directory) and write (the auditor's reads). */
export type AuditRouteDeps = IntegrityRouteDeps & {
  readonly eventStore: EventStore;
  /** Which fields of each event type are secret: the audit leaves them out. */
  readonly eventCatalog: EventCatalog;
  readonly directory: DirectoryReader;
  readonly clock: () => Date;
  /** Opens the personal fields events carry sealed (src/audit/personal-data.ts). */
  readonly personalDataKeys: PersonalDataKeys;
};

/** Records the auditor's read in their `audit-{userId}` stream. */
const recordRead = (ctx: AuditRouteDeps, request: RequestInfo, route: string, params: Record<string, unknown>) => {
  return recordAuditRead(ctx.eventStore, stampOf(request, ctx.clock().toISOString()), route, params);
};

/**
 * A `format=csv` answer, sent by the handler itself: a download named for what it holds. The
 * name is built from ids and times only, never from what a user typed.
 */
function sendCsv(res: Response, filename: string, text: string, headers: Record<string, string> = {}): void {
  const bytes = Buffer.from(text, 'utf8');
  res.setHeader('Content-Type', 'text/csv; charset=utf-8');
  res.setHeader('Content-Disposition', `attachment; filename="${filename}"`);
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('Content-Length', bytes.length);
  res.end(res.req.method === 'HEAD' ? undefined : bytes);
}

const fileTime = (at: string) => at.replace(/[:.]/g, '-');

/**
 * The audit API (docs/api.md "Audit"): for users with the platform role auditor, with either
 * credential. Checked in order: role 403, parameters 400; then the read is recorded in the
 * auditor's `audit-{userId}` stream before anything is answered.
 */
export const AUDIT_ROUTES = routeGroup<AuditRouteDeps>(
  { tag: 'audit', access: 'api', authorize: assertAuditor },
  (audit) => [
    audit.get('/api/audit/events', 'listAuditEvents', {
      summary: 'The event log in order, with its metadata, filtered, one page per cursor',
      description:
        'Each page examines at most a bounded number of events: a selective filter may ' +
        'answer a short or empty page with a `nextCursor`; continue with `cursor=nextCursor` until it is null. ' +
        'The older names stay: `after` for `cursor`, and `next` and `hasMore` in the answer. ' +
        'The read is recorded in the stream `audit-{userId}`.',
      request: { query: auditEventsQuery },
      answers: {
        200: {
          description: 'One page of events (with `format=csv`: its rows, the cursor in headers)',
          json: auditEventPageSchema,
          alsoContent: csvContent,
          headers: {
            'Audit-Next': 'With `format=csv`: the `next` cursor of the page, absent for an empty log',
            'Audit-Has-More': 'With `format=csv`: `true` when more matching events may follow right now',
          },
        },
      },
      errors: [400, 401, 403],
      handle:
        (ctx) =>
        async ({ query, request, res }) => {
          const after =
            query.cursor !== undefined
              ? decodeCursor(query.cursor, 'cursor')
              : query.after === undefined
                ? undefined
                : decodeCursor(query.after);
          const filter: AuditFilter = {
            ...(query.stream !== undefined ? { stream: query.stream } : {}),
            ...(query.userId !== undefined ? { userId: query.userId } : {}),
            ...(query.credential !== undefined ? { credential: query.credential } : {}),
            ...(query.apiKeyId !== undefined ? { apiKeyId: query.apiKeyId } : {}),
            ...(query.type !== undefined ? { type: query.type } : {}),
            ...(query.from !== undefined ? { from: Date.parse(query.from) } : {}),
            ...(query.to !== undefined ? { to: Date.parse(query.to) } : {}),
          };
          await recordRead(ctx, request, 'GET /api/audit/events', { ...query });
          const page = await readAuditPage(ctx.eventStore, filter, after, query.limit ?? DEFAULT_LIMIT);
          // Personal fields opened, or erased with their key, in every format.
          const items = (await openPersonalData(page.items, ctx.personalDataKeys)).map(
            auditEventJson(ctx.eventCatalog),
          );
          const next = page.lastSeen === undefined ? null : encodeCursor(page.lastSeen);
          if (query.format === 'csv') {
            const first = items[0]?.position ?? 'none';
            sendCsv(res, `audit-events-${first}.csv`, eventsCsv(items), {
              ...(next === null ? {} : { 'Audit-Next': next }),
              'Audit-Has-More': String(page.hasMore),
            });
            return;
          }
          return { items, nextCursor: page.hasMore ? next : null, next, hasMore: page.hasMore };
        },
    }),
    audit.get('/api/audit/resources/{id}/history', 'getResourceHistory', {
      summary: 'Every change of one resource as readable steps: who, when, with which credential, what changed',
      request: { params: auditResourcePathParams, query: auditHistoryQuery },
      answers: {
        200: {
          description: 'The steps, oldest first (one step per command; in CSV one row per change)',
          json: resourceHistorySchema,
          alsoContent: csvContent,
        },
      },
      errors: [400, 401, 403, 404],
      handle:
        (ctx) =>
        async ({ params: { id }, query, request, res }) => {
          await recordRead(ctx, request, 'GET /api/audit/resources/{id}/history', { id, ...query });
          const steps = await readResourceHistory(ctx.eventStore, id);
          if (!steps) throw notFound(`resource ${id} has no history`);
          const actorIds = [...new Set(steps.map((s) => s.actor.userId))];
          const users = await Promise.all(actorIds.map((userId) => ctx.directory.user(userId)));
          const names = new Map(users.flatMap((u) => (u ? [[u.userId, u.name] as const] : [])));
          const json = steps.map((step) => historyStepJson(step, names));
          if (query.format === 'csv') return sendCsv(res, `resource-${id}-history.csv`, historyCsv(id, json));
          return { resourceId: id, steps: json };
        },
    }),
    audit.get('/api/audit/resources/{id}/access', 'getResourceAccess', {
      summary: 'Who could see the resource at a moment, through which view and why',
      description:
        'The resource and the directory replayed to `at`, judged by the rules the ' +
        'service applies now: for `at` = now the answer is what GetResourceList serves.',
      request: { params: auditResourcePathParams, query: auditAccessQuery },
      answers: {
        200: {
          description: 'Per view, the users who could see it and their reasons (in CSV one row per view and user)',
          json: resourceAccessSchema,
          alsoContent: csvContent,
        },
      },
      errors: [400, 401, 403, 404],
      handle:
        (ctx) =>
        async ({ params: { id }, query, request, res }) => {
          const at = query.at === undefined ? ctx.clock() : new Date(query.at);
          await recordRead(ctx, request, 'GET /api/audit/resources/{id}/access', {
            id,
            at: at.toISOString(),
            ...(query.format === undefined ? {} : { format: query.format }),
          });
          const review = await reviewAccessAt(ctx.eventStore, id, at);
          if (!review) throw notFound(`resource ${id} has no history`);
          const json = accessJson(id, at, review);
          if (query.format === 'csv')
            return sendCsv(res, `resource-${id}-access-${fileTime(json.at)}.csv`, accessCsv(json));
          return json;
        },
    }),
    audit.get('/api/audit/users/{id}/access', 'getUserAccess', {
      summary: 'Every resource a person could see at a moment, by view, and why',
      description:
        'Every resource and the directory replayed to `at`, judged for this user by the rules the ' +
        'service applies now, with the reasons the per-resource review gives: for `at` = now each ' +
        'view holds what GetResourceList serves them there. A user the directory never knew is a 404; ' +
        'one not yet known at `at` answers `account: notKnown` and no views.',
      request: { params: auditUserPathParams, query: auditAccessQuery },
      answers: {
        200: {
          description:
            'Per view, the resources the user could see and their reasons (in CSV one row per view and resource)',
          json: personAccessSchema,
          alsoContent: csvContent,
        },
      },
      errors: [400, 401, 403, 404],
      handle:
        (ctx) =>
        async ({ params: { id }, query, request, res }) => {
          const at = query.at === undefined ? ctx.clock() : new Date(query.at);
          await recordRead(ctx, request, 'GET /api/audit/users/{id}/access', {
            id,
            at: at.toISOString(),
            ...(query.format === undefined ? {} : { format: query.format }),
          });
          const access = await reviewPersonAccessAt(ctx.eventStore, id, at);
          if (!access) throw notFound(`user ${id} is not in the directory`);
          const json = personAccessJson(id, at, access);
          if (query.format === 'csv')
            return sendCsv(res, `user-${id}-access-${fileTime(json.at)}.csv`, personAccessCsv(json));
          return json;
        },
    }),
    integrityRoute(audit),
  ],
);
