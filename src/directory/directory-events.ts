import { z } from 'zod';

/**
 * The platform's directory feed (docs/api.md "Directory"). The platform owns these records; this
 * service keeps a read model of them. One schema gives both the runtime check and the type.
 */
const id = z.number().int().positive();
const name = z.string().min(1).max(300).meta({ description: 'Its name, 1 to 300 characters', example: 'Ada Lovelace' });
const userId = id.meta({ description: 'The user', example: 1 });
const communityId = id.meta({ description: 'The community', example: 1 });
const projectId = id.meta({ description: 'The project', example: 10 });
const circleId = id.meta({ description: 'The circle', example: 300 });
const communityProjectId = id.meta({
  description: 'The community project: one project in one community',
  example: 1000,
});
const visibility = z
  .enum(['public', 'private'])
  .meta({ description: 'Who may find it on the platform', example: 'public' });
const listOfText = (max: number, what: string, example: string[]) =>
  z
    .array(z.string().max(100))
    .max(max)
    .meta({ description: `${what}, at most ${max}`, example });
const nullableText = (what: string, example: string) =>
  z
    .string()
    .max(100)
    .nullable()
    .meta({ description: `${what}; null when unknown`, example });
/** The data of a directory event: the record it sets (an upsert replaces the stored one whole), or the link it ends. */
const record = <S extends z.ZodRawShape>(shape: S) =>
  z.strictObject(shape).meta({ description: 'The record the event carries; an upsert replaces the stored one whole' });
/** The event type, the discriminator of the union. */
const type = <T extends string>(value: T, what: string) =>
  z.literal(value).meta({ description: `${what}`, example: value });

export const directoryEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: type('UserUpserted', 'A user, created or replaced whole'),
    data: record({
      userId,
      name,
      status: z
        .enum(['active', 'inactive', 'banned'])
        .meta({ description: 'Inactive and banned users are refused everywhere (403)', example: 'active' }),
      platformRoles: z
        .array(z.enum(['auditor']))
        .max(10)
        .optional()
        .meta({ description: 'Platform roles: `auditor` reads the audit API; default none', default: [], example: [] }),
    }),
  }),
  z.object({
    type: type('CommunityUpserted', 'A community, created or replaced whole'),
    data: record({ communityId, name, visibility }),
  }),
  z.object({
    type: type('CommunityMemberSet', "A user's membership of a community, set whole"),
    data: record({
      communityId,
      userId,
      role: z
        .enum(['member', 'admin'])
        .meta({ description: 'Admins see and manage the community view', example: 'member' }),
      status: z
        .enum(['pending', 'approved'])
        .meta({ description: 'Only approved members see what the Community level admits', example: 'approved' }),
    }),
  }),
  z.object({
    type: type('CommunityMemberRemoved', 'A user left a community'),
    data: record({ communityId, userId }),
  }),
  z.object({
    type: type('ProjectUpserted', 'A project, created or replaced whole'),
    data: record({
      projectId,
      name,
      visibility,
      teamCircleId: id.meta({ description: "The project's built-in team circle", example: 100 }),
      mentorsCircleId: id.meta({ description: "The project's built-in mentors circle", example: 101 }),
    }),
  }),
  z.object({
    type: type('ProjectMemberSet', "A user's role in a project, set whole"),
    data: record({
      projectId,
      userId,
      role: z.enum(['team', 'mentor']).meta({ description: 'Team member or mentor', example: 'team' }),
    }),
  }),
  z.object({
    type: type('ProjectMemberRemoved', 'A user left a project'),
    data: record({ projectId, userId }),
  }),
  z.object({
    type: type('CommunityProjectUpserted', 'A project joined a community'),
    data: record({ communityProjectId, communityId, projectId }),
  }),
  z.object({
    type: type('CommunityProjectRemoved', 'A project left a community'),
    data: record({ communityProjectId }),
  }),
  z.object({
    type: type('CircleUpserted', 'A circle of a project or a community, created or replaced whole'),
    data: record({
      circleId,
      name,
      longName: z.string().max(500).meta({ description: "The circle's full name", example: 'Green Valley reviewers' }),
      isActive: z.boolean().meta({ description: 'An inactive circle admits nobody', example: true }),
      projectId: id
        .nullable()
        .meta({ description: 'The project of a project circle; null for a community circle', example: null }),
      communityId: id
        .nullable()
        .meta({ description: 'The community of a community circle; null for a project circle', example: 1 }),
    }).refine((d) => (d.projectId === null) !== (d.communityId === null), {
      message: 'exactly one of projectId and communityId must be set',
      path: ['projectId'],
    }),
  }),
  z.object({
    type: type('CircleMemberSet', 'A user joined a circle'),
    data: record({ circleId, userId }),
  }),
  z.object({
    type: type('CircleMemberRemoved', 'A user left a circle'),
    data: record({ circleId, userId }),
  }),
  z.object({
    type: type('ParagraphUpserted', 'A paragraph of a project (or of a project in one community)'),
    data: record({
      paragraphId: id.meta({ description: 'The paragraph', example: 5000 }),
      projectId,
      communityId: id
        .nullable()
        .meta({ description: 'The community of a community paragraph; null for a project paragraph', example: 1 }),
    }),
  }),
  z.object({
    type: type('ApplicationDefinitionUpserted', 'An application form of a community'),
    data: record({
      applicationDefinitionId: id.meta({ description: 'The application definition', example: 70 }),
      name,
      communityId,
    }),
  }),
  z.object({
    type: type('ApplicationUpserted', 'An application submitted to a definition'),
    data: record({
      applicationId: id.meta({ description: 'The application', example: 700 }),
      applicationDefinitionId: id.meta({ description: 'The definition it answers', example: 70 }),
      name,
      submittedAt: z.iso
        .datetime({ offset: true })
        .meta({ description: 'When it was submitted (stored in UTC)', example: '2025-02-01T09:00:00Z' }),
      tags: listOfText(100, 'Its tags', ['solar']),
      country: nullableText('Its country', 'Kenya'),
      stage: nullableText('Its stage', 'prototype'),
      industry: nullableText('Its industry', 'energy'),
      sdgs: listOfText(50, 'The sustainable development goals it names', ['SDG7']),
      userInterests: listOfText(100, "Its applicant's interests", ['renewables']),
    }),
  }),
]);

export type DirectoryEvent = z.infer<typeof directoryEventSchema>;
export type DirectoryEventType = DirectoryEvent['type'];

export const DIRECTORY_EVENT_TYPES: ReadonlySet<string> = new Set(
  directoryEventSchema.options.map((o) => o.shape.type.value),
);

/** One feed request: applied in order, all or nothing. */
export const directoryBatchSchema = z
  .strictObject({
    events: z
      .array(directoryEventSchema)
      .min(1)
      .max(1000)
      .meta({
        description:
          'The events, applied in order, all or nothing; 1 to 1000, and at most 900 KiB of event JSON ' +
          '(split a larger batch)',
        example: [
          { type: 'UserUpserted', data: { userId: 1, name: 'Ada Lovelace', status: 'active' } },
          { type: 'CommunityMemberSet', data: { communityId: 1, userId: 1, role: 'member', status: 'approved' } },
        ],
      }),
  })
  .meta({
    example: {
      events: [
        { type: 'UserUpserted', data: { userId: 1, name: 'Ada Lovelace', status: 'active' } },
        { type: 'CommunityMemberSet', data: { communityId: 1, userId: 1, role: 'member', status: 'approved' } },
      ],
    },
  });

export type DirectoryBatch = z.infer<typeof directoryBatchSchema>;

/** All directory events live in one stream so a batch is one atomic append, in order. */
export const DIRECTORY_STREAM = 'directory';
