import type { Request } from 'express';

/**
 * The client's address as Express derives it under TRUST_PROXY (the `trust proxy` setting): the TCP
 * peer while it is off (the default), otherwise the nearest address in X-Forwarded-For that is not
 * a trusted proxy. Every per-address budget and the audit metadata use this one value.
 */
export function clientAddressOf(req: Request): string {
  return req.ip ?? req.socket?.remoteAddress ?? 'unknown';
}
