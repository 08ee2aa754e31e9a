import { z } from 'zod';
import { component, integer, queryInteger } from '../contract/primitives';
import { AUDIT_PAGE_MAX } from './audit-queries';
import { CIRCLE_LEVEL_NUMBERS, PRIVACY } from '../resources/access/privacy-policy';
import { privacyLevelSchema } from '../resources/privacy-level-schema';
import { editableFieldSchema } from '../resources/resource-fields';

/**
 * Requests and responses of the audit API (GET /api/audit/...). Query strings are strict: an
 * audit filter with a misspelt name must not silently widen to the whole log, so an unknown
 * parameter is a 400 naming it.
 */

// Coerced from the query string, so that the document (and the typed client) says integer.
const positiveId = queryInteger((n) => n.positive().max(Number.MAX_SAFE_INTEGER));

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

/** `json` (the default) or `csv` (RFC 4180, a header row, one row per line a person reads). */
const format = z
  .enum(['json', 'csv'])
  .optional()
  .meta({ description: 'The answer: `json` (default) or `csv` (RFC 4180, a header row; text/csv)', example: 'csv' });

/** A position in the log as the events page hands it out (`nextCursor`, `next`); `cursor` and `after` take it. */
const auditCursor = z.string().min(1).max(200);

export const auditEventsQuery = strictQuery({
  format,
  stream: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .meta({ description: 'Only this stream, e.g. `resource-12`, `directory`, `audit-3`', example: 'resource-1' }),
  userId: positiveId.optional().meta({ description: 'Only events whose actor is this user', example: 3 }),
  credential: z
    .enum(['session', 'apiKey', 'system'])
    .optional()
    .meta({ description: 'Only events made with this credential', example: 'session' }),
  apiKeyId: positiveId.optional().meta({ description: 'Only events made with this API key', example: 1 }),
  type: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .meta({ description: 'Only events of this type, e.g. `ResourceShared`', example: 'ResourceShared' }),
  from: isoTime
    .optional()
    .meta({ description: 'Only events at or after this time (metadata.at)', example: '2025-03-01T00:00:00Z' }),
  to: isoTime
    .optional()
    .meta({ description: 'Only events at or before this time (metadata.at)', example: '2025-03-31T23:59:59Z' }),
  cursor: auditCursor.optional().meta({
    description:
      'The `nextCursor` of the previous page, as GetResourceList and the applications list take theirs; ' +
      'absent: from the start of the log',
    example: 'djE6NDE',
  }),
  after: auditCursor.optional().meta({
    description:
      'The older name of `cursor`, still accepted (the `next` of the previous page), never together with it; ' +
      'absent: from the start of the log, or where `cursor` says',
    param: { deprecated: true },
    example: 'djE6NDE',
  }),
  limit: queryInteger((n) => n.min(1).max(AUDIT_PAGE_MAX))
    .optional()
    .meta({ description: `Page size, 1 to ${AUDIT_PAGE_MAX}; default 100`, default: 100, example: 50 }),
})
  .refine((q) => !q.from || !q.to || Date.parse(q.from) <= Date.parse(q.to), {
    message: 'must not be before from',
    path: ['to'],
  })
  // Two places to start from would make one of them silently ignored.
  .refine((q) => q.cursor === undefined || q.after === undefined, {
    message: 'give either cursor or its older name after, not both',
    path: ['cursor'],
  });

export const auditResourcePathParams = z.object({ id: positiveId.meta({ description: 'Resource id', example: 1 }) });

export const auditHistoryQuery = strictQuery({ format });

export const auditAccessQuery = strictQuery({
  at: isoTime.optional().meta({ description: 'The moment to review; default now', example: '2025-03-02T12:00:00Z' }),
  format,
});

export const auditUserPathParams = z.object({ id: positiveId.meta({ description: 'User id', example: 4 }) });

/** The CSV alternative of a list's JSON answer, for the OpenAPI document. */
export const csvContent = {
  'text/csv': {
    schema: z.string().meta({
      description:
        'RFC 4180 with a header row, CRLF line ends, UTF-8; sent as an attachment (Content-Disposition) ' +
        'when `format=csv`',
      example: 'position,at,streamId\r\n41,2025-03-01T10:05:00.000Z,resource-1\r\n',
    }),
  },
};

// ---------------------------------------------------------------------------------------------
// Responses

const decimal = z.string().regex(/^[0-9]+$/);

/** The demo's share of resource 1 into community 2 by Cleo (docs/api.md "Try it"), as the audit shows it. */
const sharedEvent = {
  position: '41',
  streamId: 'resource-1',
  revision: '1',
  type: 'ResourceShared',
  data: { resourceId: 1, communityId: 2, privacyLevel: 2, reason: 'Harbour Founders mentors review it' },
  metadata: {
    actor: { userId: 3, credential: 'session' as const },
    correlationId: '0b6f7c1e-2d3a-4b5c-8d9e-0f1a2b3c4d5e',
    at: '2025-03-01T10:05:00.000Z',
    clientAddress: '203.0.113.7',
  },
};

export const actorSchema = component(
  'AuditActor',
  {
    userId: integer.meta({ description: 'Who acted; 0 for the platform itself (directory imports)', example: 3 }),
    credential: z
      .enum(['session', 'apiKey', 'system'])
      .meta({ description: 'How they authenticated', example: 'session' }),
    apiKeyId: integer.optional().meta({ description: 'The API key used, with `apiKey`', example: 1 }),
    impersonatorId: integer
      .optional()
      .meta({ description: "Set when an administrator acted on the user's behalf", example: 3 }),
  },
  { description: 'Who acted, with which credential', example: { userId: 3, credential: 'session' } },
);

export const auditEventSchema = component('AuditEvent', {
  position: decimal.meta({ description: 'Global position in the log, as a decimal string', example: '41' }),
  streamId: z.string().meta({
    description: 'The stream it belongs to: `resource-<id>`, `file-<id>`, `directory`, …',
    example: 'resource-1',
  }),
  revision: decimal.meta({ description: 'Position inside its stream (0-based), as a decimal string', example: '1' }),
  type: z.string().meta({ description: 'The event type', example: 'ResourceShared' }),
  data: z.unknown().meta({
    description: "The event's data as recorded, without the fields its type marks secret (an API key's hash)",
    example: sharedEvent.data,
  }),
  metadata: component(
    'AuditEventMetadata',
    {
      actor: actorSchema,
      correlationId: z.string().meta({
        description: 'The request that appended it (X-Correlation-Id)',
        example: sharedEvent.metadata.correlationId,
      }),
      at: z.string().meta({ description: 'When it was appended (ISO 8601)', example: sharedEvent.metadata.at }),
      clientAddress: z.string().optional().meta({
        description:
          "The client's address (as TRUST_PROXY lets the service know it), on events an HTTP request appended",
        example: '203.0.113.7',
      }),
      traceparent: z
        .string()
        .optional()
        .meta({
          description:
            "The W3C trace context of the request that appended it, when it had one (the caller's `traceparent`, " +
            'or the service traces): ids only, no secret',
          example: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
        }),
    },
    { description: 'Who appended it, when, under which request', example: sharedEvent.metadata },
  ),
});

export const auditEventPageSchema = component(
  'AuditEventPage',
  {
    items: z.array(auditEventSchema).meta({ description: 'The matching events, oldest first', example: [sharedEvent] }),
    nextCursor: z
      .string()
      .nullable()
      .meta({
        description:
          'Pass as `cursor` for the next page while more matching events may follow right now; null ' +
          'once this page reaches the end of the log (as `nextCursor` of the other lists)',
        example: null,
      }),
    next: z
      .string()
      .nullable()
      .meta({
        description:
          'Older name, kept for existing clients: pass as `after` (or `cursor`) to continue, also once ' +
          '`hasMore` is false, to poll for newer events; null only for an empty log',
        example: 'djE6NDE',
      }),
    hasMore: z.boolean().meta({
      description:
        'Older name, kept for existing clients: more matching events may follow right now (`nextCursor` set)',
      example: false,
    }),
  },
  { example: { items: [sharedEvent], nextCursor: null, next: 'djE6NDE', hasMore: false } },
);

const block = z
  .union([
    z.literal('owner'),
    z.object({ share: integer.meta({ description: 'The community of the share', example: 2 }) }).strict(),
  ])
  .meta({
    description: "`owner`: the resource's own privacy; `{share: communityId}`: the share into that community",
    example: 'owner',
  });
const described = {
  description: z
    .string()
    .meta({ description: 'The change in one readable line', example: 'shared into community 2 at level 2' }),
};
const kind = <K extends string>(value: K, what: string) =>
  z.literal(value).meta({ description: `The kind of change: ${what}`, example: value });
const levelFrom = privacyLevelSchema.meta({ description: 'The level before', example: 2 });
const levelTo = privacyLevelSchema.meta({ description: 'The level after', example: 3 });
const changedCircles = z.array(integer).meta({ description: 'The circles, by id', example: [300] });
const shareCommunity = integer.meta({ description: 'The community of the share', example: 2 });
const shareLevel = privacyLevelSchema.meta({ description: "The share's level", example: 2 });

export const historyChangeSchema = z
  .discriminatedUnion('kind', [
    z
      .object({
        kind: kind('created', 'the resource was created'),
        scope: z
          .union([
            z
              .object({
                kind: z.literal('project').meta({ description: 'A project resource', example: 'project' }),
                projectId: integer.meta({ description: 'Its project', example: 10 }),
              })
              .strict(),
            z
              .object({
                kind: z
                  .literal('communityProject')
                  .meta({ description: 'A resource of one community project', example: 'communityProject' }),
                projectId: integer.meta({ description: 'Its project', example: 10 }),
                communityId: integer.meta({ description: 'The community', example: 1 }),
                communityProjectId: integer.meta({ description: 'The community project', example: 1000 }),
              })
              .strict(),
          ])
          .meta({ description: 'Where it was created' }),
        paragraphId: integer
          .nullable()
          .meta({ description: 'The paragraph it was attached to, or null', example: null }),
        name: z.string().meta({ description: 'Its name at creation', example: 'Pitch deck' }),
        resourceUrl: z.string().meta({ description: 'Its URL at creation', example: 'https://example.org/deck.pdf' }),
        privacyLevel: privacyLevelSchema.meta({ description: 'Its own level at creation', example: 2 }),
        createdByMentor: z.boolean().meta({
          // A mentor's resource is forced to Custom (resource-decide.ts): the level is the table's.
          description: `Created by a mentor (level ${PRIVACY.Custom} with the team and mentors circles)`,
          example: false,
        }),
        ...described,
      })
      .strict(),
    z
      .object({
        kind: kind('edited', 'a field was changed'),
        field: editableFieldSchema.meta({ description: 'The field', example: 'name' }),
        from: z.unknown().meta({ description: 'Its value before', example: 'Pitch deck' }),
        to: z.unknown().meta({ description: 'Its value after', example: 'Pitch deck 2025' }),
        ...described,
      })
      .strict(),
    z
      .object({ kind: kind('levelChanged', 'a level was changed'), block, from: levelFrom, to: levelTo, ...described })
      .strict(),
    z
      .object({ kind: kind('circlesGranted', 'circles were granted'), block, circleIds: changedCircles, ...described })
      .strict(),
    z
      .object({ kind: kind('circlesRevoked', 'circles were revoked'), block, circleIds: changedCircles, ...described })
      .strict(),
    z
      .object({
        kind: kind('shareAdded', 'the resource was shared into a community'),
        communityId: shareCommunity,
        privacyLevel: shareLevel,
        reason: z.string().optional().meta({
          description: 'Why it was shared, when the sharer said',
          example: 'Harbour Founders mentors review it',
        }),
        ...described,
      })
      .strict(),
    z
      .object({
        kind: kind('shareRemoved', 'a share was withdrawn'),
        communityId: shareCommunity,
        privacyLevel: shareLevel,
        ...described,
      })
      .strict(),
    z.object({ kind: kind('deleted', 'the resource was deleted'), ...described }).strict(),
  ])
  .meta({ id: 'HistoryChange' });

const historyExample = {
  resourceId: 1,
  steps: [
    {
      at: '2025-03-01T10:00:00.000Z',
      actor: { userId: 1, credential: 'session' as const },
      actorName: 'Ada',
      correlationId: '5e1d2c3b-4a59-4f68-9d7e-8c6b5a493827',
      fromRevision: '0',
      toRevision: '0',
      eventTypes: ['ResourceCreated'],
      changes: [
        {
          kind: 'created' as const,
          scope: { kind: 'communityProject' as const, projectId: 10, communityId: 1, communityProjectId: 1000 },
          paragraphId: null,
          name: 'Pitch deck',
          resourceUrl: 'https://example.org/deck.pdf',
          privacyLevel: 2,
          createdByMentor: false,
          description: 'created "Pitch deck" in community project 1000 at level 2',
        },
      ],
    },
    {
      at: '2025-03-01T10:05:00.000Z',
      actor: { userId: 3, credential: 'session' as const },
      actorName: 'Cleo',
      correlationId: sharedEvent.metadata.correlationId,
      fromRevision: '1',
      toRevision: '1',
      eventTypes: ['ResourceShared'],
      changes: [
        {
          kind: 'shareAdded' as const,
          communityId: 2,
          privacyLevel: 2,
          reason: 'Harbour Founders mentors review it',
          description: 'shared into community 2 at level 2',
        },
      ],
    },
  ],
};

export const resourceHistorySchema = component(
  'ResourceHistory',
  {
    resourceId: integer.meta({ description: 'The resource', example: 1 }),
    steps: z
      .array(
        component('HistoryStep', {
          at: z.string().meta({ description: 'When the command was recorded', example: '2025-03-01T10:00:00.000Z' }),
          actor: actorSchema,
          actorName: z
            .string()
            .nullable()
            .meta({ description: "The actor's name in the directory today", example: 'Ada' }),
          correlationId: z.string().meta({
            description: 'The request that made the change (X-Correlation-Id)',
            example: '5e1d2c3b-4a59-4f68-9d7e-8c6b5a493827',
          }),
          fromRevision: decimal.meta({ description: 'First stream revision of the step', example: '0' }),
          toRevision: decimal.meta({ description: 'Last stream revision of the step', example: '0' }),
          eventTypes: z
            .array(z.string())
            .meta({ description: 'The events the command appended', example: ['ResourceCreated'] }),
          changes: z
            .array(historyChangeSchema)
            .meta({ description: 'What changed, one entry per change', example: historyExample.steps[0]?.changes }),
        }),
      )
      .meta({ description: 'One step per command, oldest first', example: historyExample.steps }),
  },
  { example: historyExample },
);

const adaReason = { kind: 'team' as const, projectId: 10, description: 'team of project 10' };
const accessExample = {
  resourceId: 1,
  at: '2025-03-02T12:00:00.000Z',
  status: 'active' as const,
  views: [
    {
      viewKey: 'c:1',
      communityId: 1,
      communityName: 'Green Valley Makers',
      governedBy: 'own' as const,
      effectivePrivacyLevel: 2,
      circleIds: [],
      users: [
        { userId: 1, name: 'Ada', reasons: [adaReason] },
        {
          userId: 4,
          name: 'Dan',
          reasons: [
            { kind: 'member' as const, level: 2, communityId: 1, description: 'approved member of community 1' },
          ],
        },
      ],
    },
  ],
};

const accessReasonSchema = component('AccessReason', {
  kind: z
    .enum(['administersView', 'team', 'owningCommunityAdmin', 'author', 'reach', 'member', 'mentor', 'circle'])
    .meta({ description: 'Why the user sees it', example: 'team' }),
  level: privacyLevelSchema
    .optional()
    .meta({ description: 'The governing level, for reasons that come from it', example: 2 }),
  communityId: integer.optional().meta({ description: 'The community the reason is about', example: 1 }),
  projectId: integer.optional().meta({ description: 'The project the reason is about', example: 10 }),
  circleId: integer.optional().meta({ description: 'The granted circle the user is in', example: 300 }),
  userId: integer.optional().meta({ description: 'The author, for `author`', example: 1 }),
  description: z.string().meta({ description: 'The reason in one readable line', example: adaReason.description }),
});

export const resourceAccessSchema = component(
  'ResourceAccess',
  {
    resourceId: integer.meta({ description: 'The resource', example: 1 }),
    at: z.string().meta({ description: 'The moment reviewed', example: accessExample.at }),
    status: z
      .enum(['active', 'notCreated', 'deleted'])
      .meta({ description: 'The resource at that moment', example: 'active' }),
    views: z
      .array(
        component('ViewAccess', {
          viewKey: z
            .string()
            .meta({ description: '`p:<projectId>` (project-wide) or `c:<communityId>`', example: 'c:1' }),
          communityId: integer.nullable().meta({ description: 'The community of the view; null for `p:`', example: 1 }),
          communityName: z.string().nullable().meta({ description: 'Its name', example: 'Green Valley Makers' }),
          governedBy: z
            .enum(['own', 'share'])
            .meta({ description: "The resource's own level, or a share's, decides here", example: 'own' }),
          effectivePrivacyLevel: privacyLevelSchema.meta({
            description: 'The level that applies in the view',
            example: 2,
          }),
          circleIds: z
            .array(integer)
            .meta({ description: `The circles granted in the view (${CIRCLE_LEVEL_NUMBERS})`, example: [] }),
          users: z
            .array(
              component('AccessUser', {
                userId: integer.meta({ description: 'A user who could see it', example: 1 }),
                name: z.string().meta({ description: 'Their name in the directory', example: 'Ada' }),
                reasons: z
                  .array(accessReasonSchema)
                  .meta({ description: 'Every reason they could', example: [adaReason] }),
              }),
            )
            .meta({ description: 'Who could see it in this view', example: accessExample.views[0]?.users }),
        }),
      )
      .meta({ description: 'Each view the resource could be seen from', example: accessExample.views }),
  },
  { example: accessExample },
);

const personAccessExample = {
  userId: 4,
  name: 'Dan',
  account: 'active' as const,
  at: '2025-03-02T12:00:00.000Z',
  views: [
    {
      viewKey: 'c:1',
      projectId: 10,
      projectName: 'Solar kiosk',
      communityId: 1,
      communityName: 'Green Valley Makers',
      resources: [
        {
          resourceId: 1,
          name: 'Pitch deck',
          governedBy: 'own' as const,
          effectivePrivacyLevel: 2,
          reasons: [
            {
              kind: 'member' as const,
              level: 2,
              communityId: 1,
              description: 'level 2: approved member of community 1',
            },
          ],
        },
      ],
    },
  ],
};

export const personAccessSchema = component(
  'PersonAccess',
  {
    userId: integer.meta({ description: 'The person', example: 4 }),
    name: z
      .string()
      .nullable()
      .meta({ description: 'Their name at that moment; null when not yet known', example: 'Dan' }),
    account: z.enum(['active', 'inactive', 'banned', 'notKnown']).meta({
      description:
        'Their account at that moment; only an active account sees anything; `notKnown`: not yet in the directory',
      example: 'active',
    }),
    at: z.string().meta({ description: 'The moment reviewed', example: personAccessExample.at }),
    views: z
      .array(
        component('PersonView', {
          viewKey: z
            .string()
            .meta({ description: '`p:<projectId>` (project-wide) or `c:<communityId>`', example: 'c:1' }),
          projectId: integer.meta({ description: 'The project, as GetResourceList is asked', example: 10 }),
          projectName: z.string().nullable().meta({ description: 'Its name', example: 'Solar kiosk' }),
          communityId: integer
            .nullable()
            .meta({ description: 'The community it is seen from; null for the project-wide view', example: 1 }),
          communityName: z.string().nullable().meta({ description: 'Its name', example: 'Green Valley Makers' }),
          resources: z
            .array(
              component('SeenResource', {
                resourceId: integer.meta({ description: 'The resource', example: 1 }),
                name: z.string().meta({ description: 'Its name at that moment', example: 'Pitch deck' }),
                governedBy: z
                  .enum(['own', 'share'])
                  .meta({ description: "The resource's own level, or a share's, decides here", example: 'own' }),
                effectivePrivacyLevel: privacyLevelSchema.meta({
                  description: 'The level that applies in the view',
                  example: 2,
                }),
                reasons: z.array(accessReasonSchema).meta({
                  description: 'Every reason they could see it (as the per-resource review gives them)',
                  example: personAccessExample.views[0]?.resources[0]?.reasons,
                }),
              }),
            )
            .meta({
              description: 'What they could see there, by resource id',
              example: personAccessExample.views[0]?.resources,
            }),
        }),
      )
      .meta({
        description: 'Each view they could see something from, by project then community (project-wide first)',
        example: personAccessExample.views,
      }),
  },
  { example: personAccessExample },
);
