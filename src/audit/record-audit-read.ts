import { auditRead, auditStreamId } from './audit-log';
import type { EventMetadata } from '../domain/event';
import type { EventStore } from '../ports/event-store';

/**
 * Records that someone read the audit trail, before the answer leaves: a read that cannot be
 * recorded is not served. Appended without a revision check: reads never conflict.
 */
export async function recordAuditRead(
  store: EventStore,
  metadata: EventMetadata,
  route: string,
  params: Readonly<Record<string, unknown>>,
): Promise<void> {
  const event = auditRead(route, params, metadata);
  await store.appendToStream(auditStreamId(metadata.actor.userId), [event], 'any');
}
