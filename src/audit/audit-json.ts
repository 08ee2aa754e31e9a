import type { AccessReview, PersonAccess } from './access-review';
import { describeReason } from './access-review';
import type { HistoryStep } from './resource-history';
import { describeChange } from './resource-history';
import type { RecordedEvent } from '../ports/event-store';
import type { EventCatalog } from '../domain/event-upcasting';
import { secretFieldsOf, withoutSecrets } from '../domain/secret-fields';

/**
 * The JSON shapes of the audit API (src/audit/audit-schemas.ts), written by the HTTP
 * routes and, line by line, by the CLI: both print the same records. Positions and revisions are
 * 64-bit, hence decimal strings.
 */

/**
 * One event as the audit shows it: its data without the fields its schema marks secret (a key's
 * hash). The log keeps them; the hash chain covers the stored bytes, not this answer.
 */
export const auditEventJson = (catalog: EventCatalog) => (e: RecordedEvent) => {
  const definition = catalog.get(e.type);
  return {
    position: e.position.toString(),
    streamId: e.streamId,
    revision: e.revision.toString(),
    type: e.type,
    data: definition ? withoutSecrets(e.data, secretFieldsOf(definition.schema)) : e.data,
    metadata: e.metadata,
  };
};

export const historyStepJson = (step: HistoryStep, names: ReadonlyMap<number, string>) => ({
  at: step.at,
  actor: step.actor,
  actorName: names.get(step.actor.userId) ?? null,
  correlationId: step.correlationId,
  fromRevision: step.fromRevision.toString(),
  toRevision: step.toRevision.toString(),
  eventTypes: step.eventTypes,
  changes: step.changes.map((change) => ({ ...change, description: describeChange(change) })),
});

export const accessJson = (resourceId: number, at: Date, review: AccessReview) => ({
  resourceId,
  at: at.toISOString(),
  status: review.status,
  views: review.views.map((view) => ({
    ...view,
    users: view.users.map((user) => ({
      ...user,
      reasons: user.reasons.map((reason) => ({ ...reason, description: describeReason(reason) })),
    })),
  })),
});

export const personAccessJson = (userId: number, at: Date, access: PersonAccess) => ({
  userId,
  name: access.name,
  account: access.account,
  at: at.toISOString(),
  views: access.views.map((view) => ({
    ...view,
    resources: view.resources.map((seen) => ({
      ...seen,
      reasons: seen.reasons.map((reason) => ({ ...reason, description: describeReason(reason) })),
    })),
  })),
});
