import type { RequestHandler } from 'express';
import type { ReadDb } from '../infra/read-db';
import { startReading } from '../infra/read-db';

/**
 * Every request reads the read models as they are when it starts, whichever process committed
 * to them: from the generation the shared pointer names then (ReadSide.served), and in it what
 * every process had committed. A save answered by another API process is in the list asked here
 * after it, and no answer remembered before it is served past it.
 */
export function noticeOtherWriters(
  readSide: { served(): Promise<void> | undefined },
  readDb: () => ReadDb,
): RequestHandler {
  return (_req, _res, next) => {
    // A look that fails (the database unreachable) fails the request: a 503.
    const failed = (error: unknown) => next(error ?? new Error('the read models could not be looked at'));
    const looked = readDb();
    const switching = readSide.served();
    const reading = startReading(looked);
    if (!switching) {
      // The embedded database: both looks made at once, nothing to wait for.
      if (reading) reading.then(() => next(), failed);
      else next();
      return;
    }
    // Both looks at once: the pointer almost never moves, and the feed's look is the one that counts.
    Promise.all([switching, reading]).then(() => {
      const served = readDb();
      if (served === looked) return next();
      const again = startReading(served);
      if (again) again.then(() => next(), failed);
      else next();
    }, failed);
  };
}
