import type { RequestHandler } from 'express';
import type { ReadDb } from '../infra/read-db';
import { startReading } from '../infra/read-db';

/**
 * Every request reads the read models as they are when it starts, whichever process committed
 * to them: a save answered by another API process is in the list asked here after it.
 */
export function noticeOtherWriters(readDb: () => ReadDb): RequestHandler {
  return (_req, _res, next) => {
    startReading(readDb());
    next();
  };
}
