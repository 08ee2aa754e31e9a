import { recordAuditRead } from '../../commands/record-audit-read';
import { metadataOf } from '../../commands/request-info';
import type { AppContext } from '../app-context';
import { requestInfoOf } from '../middleware/authenticate';
import type { RouteGroup } from '../route-declaration';
import { integrityHeadSchema, integrityQuery } from '../schemas/integrity-schemas';

/**
 * GET /api/audit/integrity, in the audit group (auditors only): the head of the hash chain, which
 * an auditor records to check later that the log up to it was not changed (`resources-cli audit
 * verify`). The read is recorded first, like every audit read, so the head answered covers it.
 */
export const integrityRoute = (audit: RouteGroup<AppContext>) =>
  audit.get('/api/audit/integrity', 'getLogIntegrity', {
    summary: "The head of the log's hash chain: position and hash of the newest hashed event",
    description:
      'Each event carries a SHA-256 over its stored bytes and the previous event\'s hash ' +
      '(docs/architecture.md "A tamper-evident log"). The read is recorded in the stream `audit-{userId}` ' +
      'before the head is taken.',
    request: { query: integrityQuery },
    answers: { 200: { description: 'The chain head', json: integrityHeadSchema } },
    errors: [400, 401, 403],
    handle: (ctx) => async ({ res }) => {
      const metadata = metadataOf(requestInfoOf(res), ctx.clock().toISOString());
      await recordAuditRead(ctx.eventStore, metadata, 'GET /api/audit/integrity', {});
      const head = await ctx.logIntegrity?.integrityHead();
      return {
        kept: ctx.logIntegrity !== undefined,
        position: head?.position.toString() ?? null,
        hash: head?.hash ?? null,
      };
    },
  });
