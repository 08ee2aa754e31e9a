import { isIP } from 'node:net';
import type { Request } from 'express';

/**
 * The client's address as Express derives it under TRUST_PROXY (the `trust proxy` setting): the TCP
 * peer while it is off (the default), otherwise the nearest address in X-Forwarded-For that is not
 * a trusted proxy. Every per-address budget and the audit metadata use this one value. Express takes
 * X-Forwarded-For's entries as written: one that is no IP address (text a client put there, under a
 * TRUST_PROXY that trusts its hop) is not taken, and the TCP peer stands instead, so that no client
 * names its own budget or writes what the audit log records as its address.
 */
export function clientAddressOf(req: Request): string {
  const forwarded = req.ip;
  if (forwarded !== undefined && isIP(forwarded) !== 0) return forwarded;
  return req.socket?.remoteAddress ?? 'unknown';
}
