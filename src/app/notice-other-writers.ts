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
    // Both looks at once: the pointer almost never moves, and the feed's look is the one that counts.
    const looked = readDb();
    const switching = readSide.served();
    const reading = startReading(looked);
    // The generation switched meanwhile: the feed of the one served now is the one to look at.
    const ready = switching
      ? Promise.all([switching, reading]).then(() => (readDb() === looked ? undefined : startReading(readDb())))
      : reading;
    // The embedded database has nothing to wait for: on at once. A look that fails (the database
    // unreachable) fails the request: a 503.
    if (!ready) return next();
    ready.then(
      () => next(),
      (error: unknown) => next(error ?? new Error('the read models could not be looked at')),
    );
  };
}
