import { recordAuditRead } from './record-audit-read';
import { stampOf } from '../commands/request-info';
import type { LogIntegrity } from '../ports/log-integrity';
import type { EventStore } from '../ports/event-store';
import type { RouteGroup } from '../api/route-declaration';
import type { LogVerification } from './log-verification';
import { anchorCheck, parseAnchor, verifyLog } from './log-verification';
import { integrityHeadSchema, integrityQuery } from './integrity-schemas';

/** What the integrity route reads: the log's hash chain where the event store keeps one. */
export type IntegrityRouteDeps = {
  readonly eventStore: EventStore;
  readonly logIntegrity?: LogIntegrity;
  readonly clock: () => Date;
};

/** A verification as the API answers it (positions as decimal strings, as everywhere in the audit). */
const verificationJson = ({ report, checkedAt }: LogVerification) => ({
  events: report.events,
  unchained: report.unchained,
  chainedFrom: report.chainedFrom?.toString() ?? null,
  intact: report.firstMismatch === null,
  firstMismatch: report.firstMismatch && {
    position: report.firstMismatch.position.toString(),
    streamId: report.firstMismatch.streamId,
    revision: report.firstMismatch.revision.toString(),
    type: report.firstMismatch.type,
    problem: report.firstMismatch.problem,
  },
  checkedAt: checkedAt.toISOString(),
});

/**
 * GET /api/audit/integrity, in the audit group (auditors only): the head of the hash chain, which
 * an auditor records to check later that the log up to it was not changed (`resources-cli audit
 * verify`), and with `verify=true` the result of recomputing the whole chain. The read is recorded
 * first, like every audit read, so the head answered covers it.
 */
export const integrityRoute = <D extends IntegrityRouteDeps>(audit: RouteGroup<D>) =>
  audit.get('/api/audit/integrity', 'getLogIntegrity', {
    summary: "The head of the log's hash chain, and with `verify=true` whether the whole chain holds",
    description:
      "Each event carries a SHA-256 over its stored bytes and the previous event's hash " +
      '(docs/architecture.md "A tamper-evident log"). The read is recorded in the stream `audit-{userId}` ' +
      'before the head is taken. With `verify=true` the service also recomputes the chain from every ' +
      'stored event, as `resources-cli audit verify` does, and answers `verification`: the events read, ' +
      'whether the chain is intact, and else the first event that does not match. One run at a time: ' +
      'requests that arrive while a run is under way in the process share its result (its `checkedAt` ' +
      'says when it began). `verification` is null where the log keeps no chain. With `anchor` (a head ' +
      'recorded earlier, `<position>:<hash>`) it also answers whether the log still passes through it.',
    request: { query: integrityQuery },
    answers: { 200: { description: 'The chain head, and the verification when asked', json: integrityHeadSchema } },
    errors: [400, 401, 403],
    handle:
      (ctx) =>
      async ({ query, request }) => {
        const anchor = query.anchor === undefined ? undefined : parseAnchor(query.anchor);
        const verify = query.verify === 'true' || anchor !== undefined;
        const stamp = stampOf(request, ctx.clock().toISOString());
        const params = { ...(verify ? { verify: true } : {}), ...(query.anchor ? { anchor: query.anchor } : {}) };
        await recordAuditRead(ctx.eventStore, stamp, 'GET /api/audit/integrity', params);
        const verification = verify && ctx.logIntegrity ? await verifyLog(ctx.logIntegrity, ctx.clock) : undefined;
        const head = await ctx.logIntegrity?.integrityHead();
        const stored = anchor && ctx.logIntegrity ? await ctx.logIntegrity.hashAt(anchor.position) : undefined;
        return {
          kept: ctx.logIntegrity !== undefined,
          position: head?.position.toString() ?? null,
          hash: head?.hash ?? null,
          ...(anchor ? { anchor: anchorCheck(verification?.report, stored, anchor) } : {}),
          ...(verify ? { verification: verification ? verificationJson(verification) : null } : {}),
        };
      },
  });
