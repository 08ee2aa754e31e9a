import type { Actor, EventMetadata } from '../domain/event';
import type { Caller } from '../domain/auth/caller';
import { DomainError, validationError } from '../domain/errors';

/**
 * The rules of the audit API that do not depend on storage: who may read it, which events a
 * filter keeps, what the opaque cursor is, and the event that records each auditor read.
 */

export const AUDITOR_ROLE = 'auditor';

/**
 * Only users whose directory entry carries the platform role `auditor`, with their own session or
 * their API key. Not someone acting as an auditor: the audit trail opens every recorded client
 * address, which an impersonation grant (made to act for a user, not to read everyone's) must not.
 */
export function assertAuditor(caller: Pick<Caller, 'platformRoles' | 'actor'>): void {
  if (!caller.platformRoles.includes(AUDITOR_ROLE)) {
    throw new DomainError('forbidden', 'the audit API is for users with the platform role auditor');
  }
  if (caller.actor.impersonatorId !== undefined) {
    throw new DomainError('forbidden', "the audit API needs the auditor's own credential, not an impersonation");
  }
}

export type AuditFilter = {
  readonly stream?: string;
  readonly userId?: number;
  readonly credential?: Actor['credential'];
  readonly apiKeyId?: number;
  readonly type?: string;
  /** Inclusive bounds on metadata.at, in milliseconds since the epoch. */
  readonly from?: number;
  readonly to?: number;
};

export function matchesFilter(
  event: { readonly streamId: string; readonly type: string; readonly metadata: EventMetadata },
  filter: AuditFilter,
): boolean {
  const { actor } = event.metadata;
  if (filter.stream !== undefined && event.streamId !== filter.stream) return false;
  if (filter.type !== undefined && event.type !== filter.type) return false;
  if (filter.userId !== undefined && actor.userId !== filter.userId) return false;
  if (filter.credential !== undefined && actor.credential !== filter.credential) return false;
  if (filter.apiKeyId !== undefined && actor.apiKeyId !== filter.apiKeyId) return false;
  if (filter.from !== undefined || filter.to !== undefined) {
    const at = Date.parse(event.metadata.at);
    if (filter.from !== undefined && !(at >= filter.from)) return false;
    if (filter.to !== undefined && !(at <= filter.to)) return false;
  }
  return true;
}

/**
 * The cursor is opaque to clients (base64url of a versioned position) so that its encoding may
 * change; it names the last event position already seen.
 */
export function encodeCursor(position: bigint): string {
  return Buffer.from(`v1:${position.toString()}`, 'utf8').toString('base64url');
}

/**
 * The largest log position a cursor names: SQLite's and PostgreSQL's positions are signed 64-bit
 * integers (a larger one is refused by the database, not answered); EventStoreDB's commit position,
 * a count of bytes, would pass it only in a log of 8 EiB.
 */
const MAX_POSITION = 2n ** 63n - 1n;

export function decodeCursor(cursor: string, field = 'after'): bigint {
  const match = /^v1:([0-9]{1,19})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  const position = match?.[1] === undefined ? undefined : BigInt(match[1]);
  if (position === undefined || position > MAX_POSITION)
    throw validationError(field, 'not a cursor this service issued');
  return position;
}

/** Every read of the audit API, by whom and of what, lands in the reader's own stream. */
export const auditStreamId = (userId: number): string => `audit-${userId}`;

export type AuditRead = {
  readonly type: 'AuditRead';
  readonly data: { readonly route: string; readonly params: Readonly<Record<string, unknown>> };
  readonly metadata: EventMetadata;
};

export function auditRead(
  route: string,
  params: Readonly<Record<string, unknown>>,
  metadata: EventMetadata,
): AuditRead {
  return { type: 'AuditRead', data: { route, params }, metadata };
}
