import { z } from 'zod';

/**
 * The platform's directory feed (docs/api.md "Directory"). The platform owns these records; this
 * service keeps a read model of them. One schema gives both the runtime check and the type.
 */
const id = z.number().int().positive();
const name = z.string().min(1).max(300);

export const directoryEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('UserUpserted'),
    data: z.strictObject({
      userId: id,
      name,
      status: z.enum(['active', 'inactive', 'banned']),
      platformRoles: z
        .array(z.enum(['auditor']))
        .max(10)
        .optional(),
    }),
  }),
  z.object({
    type: z.literal('CommunityUpserted'),
    data: z.strictObject({ communityId: id, name, visibility: z.enum(['public', 'private']) }),
  }),
  z.object({
    type: z.literal('CommunityMemberSet'),
    data: z.strictObject({
      communityId: id,
      userId: id,
      role: z.enum(['member', 'admin']),
      status: z.enum(['pending', 'approved']),
    }),
  }),
  z.object({ type: z.literal('CommunityMemberRemoved'), data: z.strictObject({ communityId: id, userId: id }) }),
  z.object({
    type: z.literal('ProjectUpserted'),
    data: z.strictObject({
      projectId: id,
      name,
      visibility: z.enum(['public', 'private']),
      teamCircleId: id,
      mentorsCircleId: id,
    }),
  }),
  z.object({
    type: z.literal('ProjectMemberSet'),
    data: z.strictObject({ projectId: id, userId: id, role: z.enum(['team', 'mentor']) }),
  }),
  z.object({ type: z.literal('ProjectMemberRemoved'), data: z.strictObject({ projectId: id, userId: id }) }),
  z.object({
    type: z.literal('CommunityProjectUpserted'),
    data: z.strictObject({ communityProjectId: id, communityId: id, projectId: id }),
  }),
  z.object({ type: z.literal('CommunityProjectRemoved'), data: z.strictObject({ communityProjectId: id }) }),
  z.object({
    type: z.literal('CircleUpserted'),
    data: z
      .strictObject({
        circleId: id,
        name,
        longName: z.string().max(500),
        isActive: z.boolean(),
        projectId: id.nullable(),
        communityId: id.nullable(),
      })
      .refine((d) => (d.projectId === null) !== (d.communityId === null), {
        message: 'exactly one of projectId and communityId must be set',
        path: ['projectId'],
      }),
  }),
  z.object({ type: z.literal('CircleMemberSet'), data: z.strictObject({ circleId: id, userId: id }) }),
  z.object({ type: z.literal('CircleMemberRemoved'), data: z.strictObject({ circleId: id, userId: id }) }),
  z.object({
    type: z.literal('ParagraphUpserted'),
    data: z.strictObject({ paragraphId: id, projectId: id, communityId: id.nullable() }),
  }),
  z.object({
    type: z.literal('ApplicationDefinitionUpserted'),
    data: z.strictObject({ applicationDefinitionId: id, name, communityId: id }),
  }),
  z.object({
    type: z.literal('ApplicationUpserted'),
    data: z.strictObject({
      applicationId: id,
      applicationDefinitionId: id,
      name,
      submittedAt: z.iso.datetime({ offset: true }),
      tags: z.array(z.string().max(100)).max(100),
      country: z.string().max(100).nullable(),
      stage: z.string().max(100).nullable(),
      industry: z.string().max(100).nullable(),
      sdgs: z.array(z.string().max(100)).max(50),
      userInterests: z.array(z.string().max(100)).max(100),
    }),
  }),
]);

export type DirectoryEvent = z.infer<typeof directoryEventSchema>;
export type DirectoryEventType = DirectoryEvent['type'];

export const DIRECTORY_EVENT_TYPES: ReadonlySet<string> = new Set(
  directoryEventSchema.options.map((o) => o.shape.type.value),
);

/** One feed request: applied in order, all or nothing. */
export const directoryBatchSchema = z.strictObject({
  events: z.array(directoryEventSchema).min(1).max(1000),
});

export type DirectoryBatch = z.infer<typeof directoryBatchSchema>;

/** All directory events live in one stream so a batch is one atomic append, in order. */
export const DIRECTORY_STREAM = 'directory';
