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
