import { parseArgs } from 'node:util';
import type { EventStore } from '../ports/event-store';
import type { ChainReport } from '../ports/log-integrity';
import { hasLogIntegrity } from '../ports/log-integrity';
import { anchorCheck, parseAnchor } from '../audit/log-verification';

type Out = { write(text: string): void };

export const AUDIT_VERIFY_USAGE = `  audit verify [--anchor <position>:<hash>]
      recompute the log's hash chain from the stored bytes; one JSON line: the head, and the first
      event that does not match (exit 1), or none (exit 0); with --anchor (a head recorded earlier),
      also whether the log still passes through it (exit 1 when it does not)
`;

/** The report as one JSON line (positions as decimal strings). */
export const chainReportJson = (report: ChainReport) => ({
  ok: report.firstMismatch === null,
  events: report.events,
  unchained: report.unchained,
  chainedFrom: report.chainedFrom?.toString() ?? null,
  head: report.head && { position: report.head.position.toString(), hash: report.head.hash },
  firstMismatch: report.firstMismatch && {
    ...report.firstMismatch,
    position: report.firstMismatch.position.toString(),
    revision: report.firstMismatch.revision.toString(),
  },
});

/** `audit verify`: exit 0 when the chain holds, 1 naming the first event that does not, 2 when the log keeps none. */
export async function auditVerify(args: string[], store: EventStore, out: Out): Promise<number> {
  const { values } = parseArgs({ args, options: { anchor: { type: 'string' } } });
  const anchor = values.anchor === undefined ? undefined : parseAnchor(values.anchor);
  if (values.anchor !== undefined && !anchor) {
    process.stderr.write('--anchor takes <position>:<hash>, a head GET /api/audit/integrity answered\n');
    return 2;
  }
  if (!hasLogIntegrity(store)) {
    process.stderr.write('this event store keeps no hash chain (docs/architecture.md "A tamper-evident log")\n');
    return 2;
  }
  const report = await store.verifyIntegrity();
  const checked = anchor && anchorCheck(report, await store.hashAt(anchor.position), anchor);
  out.write(`${JSON.stringify({ ...chainReportJson(report), ...(checked ? { anchor: checked } : {}) })}\n`);
  return report.firstMismatch === null && checked?.holds !== false ? 0 : 1;
}
