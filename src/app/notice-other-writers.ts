import type { RequestHandler } from 'express';
import type { ReadDb } from '../infra/read-db';
import { startReading } from '../infra/read-db';

/**
 * Every request reads the read models as they are when it starts, whichever process committed
 * to them: a save answered by another API process is in the list asked here after it, and no
 * answer remembered before it is served past it.
 */
export function noticeOtherWriters(readDb: () => ReadDb): RequestHandler {
  return (_req, _res, next) => {
    const reading = startReading(readDb());
    // A look that fails (the database unreachable) fails the request: a 503.
    if (reading)
      reading.then(
        () => next(),
        (error: unknown) => next(error ?? new Error('the read models could not be looked at')),
      );
    else next();
  };
}
