/**
 * Which external adapter a contract suite may run against, decided synchronously at collection
 * time from what test/support/global-setup.ts found. A suite that cannot run prints one visible
 * SKIPPED line with the reason instead of passing silently.
 */
export type ExternalTarget =
  | { readonly kind: 'url'; readonly url: string }
  | { readonly kind: 'docker' }
  | { readonly kind: 'skip'; readonly reason: string };

export function externalTarget(adapter: 'mongodb' | 'eventstore' | 'redis' | 'postgres'): ExternalTarget {
  if (adapter === 'redis') {
    const url = process.env.TEST_REDIS_URL;
    return url ? { kind: 'url', url } : { kind: 'skip', reason: process.env.TEST_REDIS_SKIP ?? 'Redis unreachable' };
  }
  if (adapter === 'postgres') {
    const url = process.env.TEST_POSTGRES_URL;
    return url
      ? { kind: 'url', url }
      : { kind: 'skip', reason: process.env.TEST_POSTGRES_SKIP ?? 'PostgreSQL unreachable' };
  }
  const variable = adapter === 'mongodb' ? 'MONGODB_URL' : 'EVENTSTORE_URL';
  const url = process.env[variable];
  if (url) return { kind: 'url', url };
  if (process.env.TEST_DOCKER === '1') return { kind: 'docker' };
  return { kind: 'skip', reason: `${variable} is not set and no Docker engine answers` };
}

/** Prints the SKIPPED line where a human reading the test output will see it. */
export function announceSkip(suite: string, reason: string): void {
  process.stderr.write(`\nSKIPPED ${suite}: ${reason}\n`);
}

/**
 * Declares a suite that needs an external adapter. Where it cannot run, its tests are still
 * declared, as skipped, so jest's count and CI's closing line show them, and the reason is printed.
 */
export function describeExternal(suite: string, target: ExternalTarget, body: () => void): void {
  if (target.kind === 'skip') {
    announceSkip(suite, target.reason);
    describe.skip(`${suite} (skipped: ${target.reason})`, body);
  } else {
    describe(suite, body);
  }
}

/**
 * Why a MongoDB suite that needs transactions cannot run here, or undefined when it can: decided
 * by test/support/global-setup.ts, which asks the server at MONGODB_URL whether it is a replica set.
 */
export function mongoTransactionsSkipReason(): string | undefined {
  return process.env.TEST_MONGODB_NO_TRANSACTIONS || undefined;
}
