import { accessJson, auditEventJson, historyStepJson } from './audit-json';
import { openPersonalData } from './personal-data';
import type { PersonalDataKeys } from '../ports/personal-data-keys';
import { readAuditPage, readResourceHistory, reviewAccessAt } from './audit-queries';
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
        'answer a short or empty page with `hasMore` true; continue with `after=next`. ' +
        'The read is recorded in the stream `audit-{userId}`.',
      request: { query: auditEventsQuery },
      answers: { 200: { description: 'One page of events', json: auditEventPageSchema } },
      errors: [400, 401, 403],
      handle:
        (ctx) =>
        async ({ query, request }) => {
          const after = query.after === undefined ? undefined : decodeCursor(query.after);
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
          return {
            items: (await openPersonalData(page.items, ctx.personalDataKeys)).map(auditEventJson(ctx.eventCatalog)),
            next: page.lastSeen === undefined ? null : encodeCursor(page.lastSeen),
            hasMore: page.hasMore,
          };
        },
    }),
    audit.get('/api/audit/resources/{id}/history', 'getResourceHistory', {
      summary: 'Every change of one resource as readable steps: who, when, with which credential, what changed',
      request: { params: auditResourcePathParams, query: auditHistoryQuery },
      answers: { 200: { description: 'The steps, oldest first (one step per command)', json: resourceHistorySchema } },
      errors: [400, 401, 403, 404],
      handle:
        (ctx) =>
        async ({ params: { id }, request }) => {
          await recordRead(ctx, request, 'GET /api/audit/resources/{id}/history', { id });
          const steps = await readResourceHistory(ctx.eventStore, id);
          if (!steps) throw notFound(`resource ${id} has no history`);
          const actorIds = [...new Set(steps.map((s) => s.actor.userId))];
          const users = await Promise.all(actorIds.map((userId) => ctx.directory.user(userId)));
          const names = new Map(users.flatMap((u) => (u ? [[u.userId, u.name] as const] : [])));
          return { resourceId: id, steps: steps.map((step) => historyStepJson(step, names)) };
        },
    }),
    audit.get('/api/audit/resources/{id}/access', 'getResourceAccess', {
      summary: 'Who could see the resource at a moment, through which view and why',
      description:
        'The resource and the directory replayed to `at`, judged by the rules the ' +
        'service applies now: for `at` = now the answer is what GetResourceList serves.',
      request: { params: auditResourcePathParams, query: auditAccessQuery },
      answers: {
        200: { description: 'Per view, the users who could see it and their reasons', json: resourceAccessSchema },
      },
      errors: [400, 401, 403, 404],
      handle:
        (ctx) =>
        async ({ params: { id }, query, request }) => {
          const at = query.at === undefined ? ctx.clock() : new Date(query.at);
          await recordRead(ctx, request, 'GET /api/audit/resources/{id}/access', { id, at: at.toISOString() });
          const review = await reviewAccessAt(ctx.eventStore, id, at);
          if (!review) throw notFound(`resource ${id} has no history`);
          return accessJson(id, at, review);
        },
    }),
    integrityRoute(audit),
  ],
);
