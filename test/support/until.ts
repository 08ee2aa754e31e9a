import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Polls `condition` until it holds; fails naming `what` after 10 s. A bounded wait for a
 * condition, never a sleep standing for one.
 */
export async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`waited 10 s for ${what}`);
    await sleep(2);
  }
}
