import { announceSkip } from './external';

/*
 * Where no PostgreSQL answers (a machine without one; never in CI, where global-setup stops the
 * run instead), the file's tests are declared skipped with the reason printed, not run on the
 * embedded store a second time.
 */
if (!process.env.TEST_POSTGRES_URL) {
  announceSkip(
    `${expect.getState().testPath ?? 'an HTTP suite'} on PostgreSQL`,
    process.env.TEST_POSTGRES_SKIP ?? 'PostgreSQL unreachable',
  );
  Object.assign(globalThis, { it: it.skip, test: test.skip });
}
