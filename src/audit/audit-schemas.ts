import { z } from 'zod';
import { component, integer } from '../contract/primitives';
import { AUDIT_PAGE_MAX } from './audit-queries';

/**
 * Requests and responses of the audit API (GET /api/audit/...). Query strings are strict: an
 * audit filter with a misspelt name must not silently widen to the whole log, so an unknown
 * parameter is a 400 naming it.
 */

// Coerced from the query string, so that the document (and the typed client) says integer.
const positiveId = z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER);

const isoTime = z.iso
  .datetime({ offset: true })
  .meta({ description: 'ISO 8601 time with an offset, e.g. 2025-03-01T00:00:00Z' });

/** z.object that refuses unknown keys one issue per key, so that `errors[].field` names each. */
function strictQuery<S extends z.ZodRawShape>(shape: S) {
  return z.looseObject(shape).superRefine((value, ctx) => {
    for (const key of Object.keys(value)) {
      if (!(key in shape)) ctx.addIssue({ code: 'custom', path: [key], message: 'unknown query parameter' });
    }
  });
}

export const auditEventsQuery = strictQuery({
  stream: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .meta({ description: 'Only this stream, e.g. `resource-12`, `directory`, `audit-3`' }),
  userId: positiveId.optional().meta({ description: 'Only events whose actor is this user' }),
  credential: z
    .enum(['session', 'apiKey', 'system'])
    .optional()
    .meta({ description: 'Only events made with this credential' }),
  apiKeyId: positiveId.optional().meta({ description: 'Only events made with this API key' }),
  type: z.string().min(1).max(100).optional().meta({ description: 'Only events of this type, e.g. `ResourceShared`' }),
  from: isoTime.optional().meta({ description: 'Only events at or after this time (metadata.at)' }),
  to: isoTime.optional().meta({ description: 'Only events at or before this time (metadata.at)' }),
  after: z.string().min(1).max(200).optional().meta({ description: 'The `next` cursor of the previous page' }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(AUDIT_PAGE_MAX)
    .optional()
    .meta({ description: `Page size, 1 to ${AUDIT_PAGE_MAX}; default 100` }),
}).refine((q) => !q.from || !q.to || Date.parse(q.from) <= Date.parse(q.to), {
  message: 'must not be before from',
  path: ['to'],
});

export const auditResourcePathParams = z.object({ id: positiveId.meta({ description: 'Resource id' }) });

export const auditHistoryQuery = strictQuery({});

export const auditAccessQuery = strictQuery({
  at: isoTime.optional().meta({ description: 'The moment to review; default now' }),
});

// ---------------------------------------------------------------------------------------------
// Responses

const decimal = z.string().regex(/^[0-9]+$/);
const privacyLevel = z.number().int().min(1).max(5);

export const actorSchema = component('AuditActor', {
  userId: integer.meta({ description: '0 for the platform itself (directory imports)' }),
  credential: z.enum(['session', 'apiKey', 'system']),
  apiKeyId: integer.optional(),
  impersonatorId: integer.optional().meta({ description: "Set when an administrator acted on the user's behalf" }),
});

export const auditEventSchema = component('AuditEvent', {
  position: decimal.meta({ description: 'Global position in the log, as a decimal string' }),
  streamId: z.string(),
  revision: decimal.meta({ description: 'Position inside its stream (0-based), as a decimal string' }),
  type: z.string(),
  data: z.unknown().meta({ description: 'The event as recorded' }),
  metadata: component('AuditEventMetadata', {
    actor: actorSchema,
    correlationId: z.string(),
    at: z.string(),
    clientAddress: z.string().optional().meta({
      description: "The client's address (as TRUST_PROXY lets the service know it), on events an HTTP request appended",
    }),
  }),
});

export const auditEventPageSchema = component('AuditEventPage', {
  items: z.array(auditEventSchema),
  next: z
    .string()
    .nullable()
    .meta({
      description:
        'Pass as `after` to continue (also once `hasMore` is false, to poll for newer ' +
        'events); null only for an empty log',
    }),
  hasMore: z.boolean().meta({ description: 'More matching events may follow right now' }),
});

const block = z.union([z.literal('owner'), z.object({ share: integer }).strict()]).meta({
  description: "`owner`: the resource's own privacy; `{share: communityId}`: the share into that community",
});
const described = { description: z.string().meta({ description: 'The change in one readable line' }) };

export const historyChangeSchema = z
  .discriminatedUnion('kind', [
    z
      .object({
        kind: z.literal('created'),
        scope: z.union([
          z.object({ kind: z.literal('project'), projectId: integer }).strict(),
          z
            .object({
              kind: z.literal('communityProject'),
              projectId: integer,
              communityId: integer,
              communityProjectId: integer,
            })
            .strict(),
        ]),
        paragraphId: integer.nullable(),
        name: z.string(),
        resourceUrl: z.string(),
        privacyLevel,
        createdByMentor: z.boolean(),
        ...described,
      })
      .strict(),
    z
      .object({
        kind: z.literal('edited'),
        field: z.enum(['name', 'description', 'resourceUrl', 'icon', 'tags']),
        from: z.unknown(),
        to: z.unknown(),
        ...described,
      })
      .strict(),
    z.object({ kind: z.literal('levelChanged'), block, from: privacyLevel, to: privacyLevel, ...described }).strict(),
    z.object({ kind: z.literal('circlesGranted'), block, circleIds: z.array(integer), ...described }).strict(),
    z.object({ kind: z.literal('circlesRevoked'), block, circleIds: z.array(integer), ...described }).strict(),
    z
      .object({
        kind: z.literal('shareAdded'),
        communityId: integer,
        privacyLevel,
        reason: z.string().optional().meta({ description: 'Why it was shared, when the sharer said' }),
        ...described,
      })
      .strict(),
    z.object({ kind: z.literal('shareRemoved'), communityId: integer, privacyLevel, ...described }).strict(),
    z.object({ kind: z.literal('deleted'), ...described }).strict(),
  ])
  .meta({ id: 'HistoryChange' });

export const resourceHistorySchema = component('ResourceHistory', {
  resourceId: integer,
  steps: z.array(
    component('HistoryStep', {
      at: z.string(),
      actor: actorSchema,
      actorName: z.string().nullable().meta({ description: "The actor's name in the directory today" }),
      correlationId: z.string().meta({ description: 'The request that made the change (X-Correlation-Id)' }),
      fromRevision: decimal,
      toRevision: decimal,
      eventTypes: z.array(z.string()),
      changes: z.array(historyChangeSchema),
    }),
  ),
});

const accessReasonSchema = component('AccessReason', {
  kind: z.enum(['administersView', 'team', 'owningCommunityAdmin', 'author', 'reach', 'member', 'mentor', 'circle']),
  level: privacyLevel.optional().meta({ description: 'The governing level, for reasons that come from it' }),
  communityId: integer.optional(),
  projectId: integer.optional(),
  circleId: integer.optional(),
  userId: integer.optional(),
  description: z.string(),
});

export const resourceAccessSchema = component('ResourceAccess', {
  resourceId: integer,
  at: z.string(),
  status: z.enum(['active', 'notCreated', 'deleted']).meta({ description: 'The resource at that moment' }),
  views: z.array(
    component('ViewAccess', {
      viewKey: z.string().meta({ description: '`p:<projectId>` (project-wide) or `c:<communityId>`' }),
      communityId: integer.nullable(),
      communityName: z.string().nullable(),
      governedBy: z.enum(['own', 'share']),
      effectivePrivacyLevel: privacyLevel,
      circleIds: z.array(integer),
      users: z.array(
        component('AccessUser', { userId: integer, name: z.string(), reasons: z.array(accessReasonSchema) }),
      ),
    }),
  ),
});
