import { Router } from 'express';
import type { Response } from 'express';
import { accessJson, auditEventJson, historyStepJson } from '../../audit/audit-json';
import { readAuditPage, readResourceHistory, reviewAccessAt } from '../../audit/audit-queries';
import { recordAuditRead } from '../../commands/record-audit-read';
import type { AuditFilter } from '../../domain/audit/audit-log';
import { assertAuditor, decodeCursor, encodeCursor } from '../../domain/audit/audit-log';
import { notFound } from '../../domain/errors';
import type { AppContext } from '../app-context';
import { requestInfoOf } from '../middleware/authenticate';
import { auditAccessQuery, auditEventsQuery, auditHistoryQuery, auditResourcePathParams } from '../schemas/audit-schemas';
import { parseWith } from '../validation';

const DEFAULT_LIMIT = 100;

/**
 * The audit API (DESIGN "Audit API"): for users with the platform role auditor, with either
 * credential. Checked in order: role 403, parameters 400; then the read is recorded in the
 * auditor's `audit-{userId}` stream before anything is answered.
 */
export function auditRoutes(ctx: AppContext): Router {
  const router = Router();

  /** The caller, once checked to be an auditor, and a recorder of this read. */
  const auditor = (res: Response) => {
    const { caller, correlationId } = requestInfoOf(res);
    assertAuditor(caller);
    return (route: string, params: Record<string, unknown>) =>
      recordAuditRead(ctx.eventStore, { actor: caller.actor, correlationId, at: ctx.clock().toISOString() }, route, params);
  };

  router.get('/api/audit/events', async (req, res) => {
    const record = auditor(res);
    const query = parseWith(auditEventsQuery, req.query);
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
    await record('GET /api/audit/events', { ...query });
    const page = await readAuditPage(ctx.eventStore, filter, after, query.limit ?? DEFAULT_LIMIT);
    res.json({
      items: page.items.map(auditEventJson),
      next: page.lastSeen === undefined ? null : encodeCursor(page.lastSeen),
      hasMore: page.hasMore,
    });
  });

  router.get('/api/audit/resources/:id/history', async (req, res) => {
    const record = auditor(res);
    const { id } = parseWith(auditResourcePathParams, req.params);
    parseWith(auditHistoryQuery, req.query);
    await record('GET /api/audit/resources/{id}/history', { id });
    const steps = await readResourceHistory(ctx.eventStore, id);
    if (!steps) throw notFound(`resource ${id} has no history`);
    const actorIds = [...new Set(steps.map((s) => s.actor.userId))];
    const users = await Promise.all(actorIds.map((userId) => ctx.directory.user(userId)));
    const names = new Map(users.flatMap((u) => (u ? [[u.userId, u.name] as const] : [])));
    res.json({ resourceId: id, steps: steps.map((step) => historyStepJson(step, names)) });
  });

  router.get('/api/audit/resources/:id/access', async (req, res) => {
    const record = auditor(res);
    const { id } = parseWith(auditResourcePathParams, req.params);
    const query = parseWith(auditAccessQuery, req.query);
    const at = query.at === undefined ? ctx.clock() : new Date(query.at);
    await record('GET /api/audit/resources/{id}/access', { id, at: at.toISOString() });
    const review = await reviewAccessAt(ctx.eventStore, id, at);
    if (!review) throw notFound(`resource ${id} has no history`);
    res.json(accessJson(id, at, review));
  });

  return router;
}
