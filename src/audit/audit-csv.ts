import type { CsvCell } from './csv-encoding';
import { csvText } from './csv-encoding';
import type { accessJson, auditEventJson, historyStepJson, personAccessJson } from './audit-json';

/**
 * The audit lists as CSV tables (`format=csv`): one row per thing a person reads — an event, a
 * change of a step, a user of a view, a resource of a view — with the JSON answer's values, the
 * nested ones flattened into columns; an event's data stays one JSON cell.
 */

type EventJson = ReturnType<ReturnType<typeof auditEventJson>>;
type StepJson = ReturnType<typeof historyStepJson>;
type AccessJson = ReturnType<typeof accessJson>;
type PersonAccessJson = ReturnType<typeof personAccessJson>;

export type CsvTable = { readonly filename: string; readonly text: string };

const actorCells = (actor: {
  readonly userId: number;
  readonly credential: string;
  readonly apiKeyId?: number;
  readonly impersonatorId?: number;
}): CsvCell[] => [actor.userId, actor.credential, actor.apiKeyId, actor.impersonatorId];
const ACTOR_HEADER = ['actorUserId', 'credential', 'apiKeyId', 'impersonatorId'];

export function eventsCsv(items: readonly EventJson[]): string {
  return csvText(
    ['position', 'at', 'streamId', 'revision', 'type', ...ACTOR_HEADER, 'correlationId', 'clientAddress', 'data'],
    items.map((e) => [
      e.position,
      e.metadata.at,
      e.streamId,
      e.revision,
      e.type,
      ...actorCells(e.metadata.actor),
      e.metadata.correlationId,
      e.metadata.clientAddress,
      JSON.stringify(e.data),
    ]),
  );
}

export function historyCsv(resourceId: number, steps: readonly StepJson[]): string {
  return csvText(
    [
      'resourceId',
      'at',
      ...ACTOR_HEADER,
      'actorName',
      'correlationId',
      'fromRevision',
      'toRevision',
      'eventTypes',
      'change',
      'description',
    ],
    steps.flatMap((s) =>
      s.changes.map((c) => [
        resourceId,
        s.at,
        ...actorCells(s.actor),
        s.actorName,
        s.correlationId,
        s.fromRevision,
        s.toRevision,
        s.eventTypes.join(' '),
        c.kind,
        c.description,
      ]),
    ),
  );
}

const reasonCells = (reasons: readonly { readonly kind: string; readonly description: string }[]): CsvCell[] => [
  reasons.map((r) => r.kind).join(' '),
  reasons.map((r) => r.description).join('; '),
];

export function accessCsv(access: AccessJson): string {
  return csvText(
    [
      'resourceId',
      'at',
      'status',
      'viewKey',
      'communityId',
      'communityName',
      'governedBy',
      'effectivePrivacyLevel',
      'userId',
      'name',
      'reasonKinds',
      'reasons',
    ],
    access.views.flatMap((v) =>
      v.users.map((u) => [
        access.resourceId,
        access.at,
        access.status,
        v.viewKey,
        v.communityId,
        v.communityName,
        v.governedBy,
        v.effectivePrivacyLevel,
        u.userId,
        u.name,
        ...reasonCells(u.reasons),
      ]),
    ),
  );
}

export function personAccessCsv(access: PersonAccessJson): string {
  return csvText(
    [
      'userId',
      'at',
      'account',
      'viewKey',
      'projectId',
      'projectName',
      'communityId',
      'communityName',
      'resourceId',
      'resourceName',
      'governedBy',
      'effectivePrivacyLevel',
      'reasonKinds',
      'reasons',
    ],
    access.views.flatMap((v) =>
      v.resources.map((r) => [
        access.userId,
        access.at,
        access.account,
        v.viewKey,
        v.projectId,
        v.projectName,
        v.communityId,
        v.communityName,
        r.resourceId,
        r.name,
        r.governedBy,
        r.effectivePrivacyLevel,
        ...reasonCells(r.reasons),
      ]),
    ),
  );
}
