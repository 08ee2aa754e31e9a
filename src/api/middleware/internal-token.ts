import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { DomainError } from '../../domain/errors';

/** Compares secrets in constant time; hashing first makes the lengths equal. */
export function secretsEqual(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** Guards the platform-facing /internal routes with the directory sync token. */
export function requireInternalToken(expected: string): RequestHandler {
  return (req, _res, next) => {
    const token = req.header('x-directory-token');
    if (token === undefined || !secretsEqual(token, expected)) {
      throw new DomainError('unauthenticated', 'a valid X-Directory-Token header is required');
    }
    next();
  };
}
