import { recordAuditRead } from './record-audit-read';
import { stampOf } from '../commands/request-info';
import type { LogIntegrity } from '../ports/log-integrity';
import type { EventStore } from '../ports/event-store';
import type { RouteGroup } from '../api/route-declaration';
import { integrityHeadSchema, integrityQuery } from './integrity-schemas';

/** What the integrity route reads: the log's hash chain where the event store keeps one. */
export type IntegrityRouteDeps = {
  readonly eventStore: EventStore;
  readonly logIntegrity?: LogIntegrity;
  readonly clock: () => Date;
};

/**
 * GET /api/audit/integrity, in the audit group (auditors only): the head of the hash chain, which
 * an auditor records to check later that the log up to it was not changed (`resources-cli audit
 * verify`). The read is recorded first, like every audit read, so the head answered covers it.
 */
export const integrityRoute = <D extends IntegrityRouteDeps>(audit: RouteGroup<D>) =>
  audit.get('/api/audit/integrity', 'getLogIntegrity', {
    summary: "The head of the log's hash chain: position and hash of the newest hashed event",
    description:
      "Each event carries a SHA-256 over its stored bytes and the previous event's hash " +
      '(docs/architecture.md "A tamper-evident log"). The read is recorded in the stream `audit-{userId}` ' +
      'before the head is taken.',
    request: { query: integrityQuery },
    answers: { 200: { description: 'The chain head', json: integrityHeadSchema } },
    errors: [400, 401, 403],
    handle:
      (ctx) =>
      async ({ request }) => {
        const stamp = stampOf(request, ctx.clock().toISOString());
        await recordAuditRead(ctx.eventStore, stamp, 'GET /api/audit/integrity', {});
        const head = await ctx.logIntegrity?.integrityHead();
        return {
          kept: ctx.logIntegrity !== undefined,
          position: head?.position.toString() ?? null,
          hash: head?.hash ?? null,
        };
      },
  });
