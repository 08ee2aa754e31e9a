import type { ChainReport, LogIntegrity } from '../ports/log-integrity';

/** The result of recomputing the whole hash chain, and when that run began. */
export type LogVerification = {
  readonly report: ChainReport;
  /** When the run began: it covers the log as it stood then (events appended meanwhile may be left out). */
  readonly checkedAt: Date;
};

/**
 * The run in progress per log. A verification reads every event: callers that ask while one runs
 * get that run's result instead of starting a scan each, so that many auditors pressing "verify"
 * at once cost the database one scan. Keyed by the log itself so that every route or app of this
 * process reading the same log shares it; a run that ended is forgotten, so the next ask scans
 * again and sees what was appended or changed since.
 */
const running = new WeakMap<LogIntegrity, Promise<LogVerification>>();

export function verifyLog(integrity: LogIntegrity, clock: () => Date): Promise<LogVerification> {
  const current = running.get(integrity);
  if (current) return current;
  const checkedAt = clock();
  const run = (async () => {
    try {
      return { report: await integrity.verifyIntegrity(), checkedAt };
    } finally {
      running.delete(integrity);
    }
  })();
  running.set(integrity, run);
  return run;
}

/** A head an auditor recorded earlier (`GET /api/audit/integrity`), to check the log still passes through it. */
export type ChainAnchor = { readonly position: bigint; readonly hash: string };

/**
 * The anchor as given, and whether the log still passes through it (`holds`): the chain holds as a
 * whole (`report`; none where the log keeps no chain) and the event at the anchor's position
 * carries the recorded hash. A hash is stored beside its event, but one that holds is the one its
 * content and every event before it give: so nothing up to the anchor was changed, even by someone
 * who recomputed the hashes after an edit. Positions as decimal strings, as everywhere in the audit.
 */
export function anchorCheck(
  report: ChainReport | undefined,
  storedHash: string | undefined,
  anchor: ChainAnchor,
): { position: string; hash: string; holds: boolean } {
  const holds = report !== undefined && report.firstMismatch === null && storedHash === anchor.hash;
  return { position: anchor.position.toString(), hash: anchor.hash, holds };
}

/** An anchor as an auditor writes it, `<position>:<hash>` (the head `GET /api/audit/integrity` answered). */
export const ANCHOR_PATTERN = /^([0-9]{1,19}):([0-9a-f]{64})$/;

export function parseAnchor(text: string): ChainAnchor | undefined {
  const match = ANCHOR_PATTERN.exec(text);
  return match ? { position: BigInt(match[1]!), hash: match[2]! } : undefined;
}
