import { z } from 'zod';
import { component, integer } from '../contract/primitives';
import { privacyLevelSchema } from '../resources/privacy-level-schema';

/**
 * docs/api.md's GetResourcePrivacy answer, stated once: built by src/privacy/privacy-queries.ts,
 * documented and checked by the API. See resource-record.ts for why it lives in this module.
 */

const reviewers = {
  id: 300,
  name: 'Reviewers',
  longName: 'Green Valley reviewers',
  isActive: true,
  projectId: null,
  communityId: 1,
};
const reviewersGroup = {
  name: 'Green Valley Makers',
  isProject: false,
  isCommunity: true,
  privacyCircles: [reviewers],
};

/** A circle group: the items of `privacyCircles`. */
export const privacyCircleSchema = component(
  'PrivacyCircle',
  {
    id: integer.meta({ description: 'The circle', example: 300 }),
    name: z.string().meta({ description: "The circle's short name", example: 'Reviewers' }),
    longName: z.string().meta({ description: "The circle's full name", example: 'Green Valley reviewers' }),
    isActive: z.boolean().meta({ description: 'False for a circle the directory marks inactive', example: true }),
    projectId: integer
      .nullable()
      .meta({ description: 'The project of a project circle; null otherwise', example: null }),
    communityId: integer
      .nullable()
      .meta({ description: 'The community of a community circle; null otherwise', example: 1 }),
  },
  { example: reviewers },
);

/** A circle group as privacy reads answer it: an item of `circles`. */
export const circleGroupSchema = component(
  'CircleGroup',
  {
    name: z
      .string()
      .meta({ description: 'The project or community the circles belong to', example: 'Green Valley Makers' }),
    isProject: z.boolean().meta({ description: "True for a project's circles", example: false }),
    isCommunity: z.boolean().meta({ description: "True for a community's circles", example: true }),
    privacyCircles: z
      .array(privacyCircleSchema)
      .meta({ description: 'The granted circles of that project or community', example: [reviewers] }),
  },
  { example: reviewersGroup },
);

export type CircleGroup = z.output<typeof circleGroupSchema>;

const circles = z.array(circleGroupSchema).meta({
  description: 'The granted circles, grouped by project or community; empty for a caller who may only read',
  example: [reviewersGroup],
});
const communityName = z.string().meta({ description: "The community's name", example: 'Harbour Founders' });

const resourcePrivacyExample = {
  resourceId: 1,
  isProjectScoped: false,
  owningCommunityId: 1,
  owningCommunityName: 'Green Valley Makers',
  owner: { privacyLevel: 4, circles: [reviewersGroup] },
  shares: [{ communityId: 2, communityName: 'Harbour Founders', privacyLevel: 2, circles: [] }],
  shareCandidates: [],
  canEdit: true,
  canShareCrossCommunity: true,
};

/** The GetResourcePrivacy answer. */
export const resourcePrivacySchema = component(
  'ResourcePrivacy',
  {
    resourceId: integer.meta({ description: 'The resource', example: 1 }),
    isProjectScoped: z
      .boolean()
      .meta({ description: "A project resource (in the project's view and every community's)", example: false }),
    owningCommunityId: integer
      .nullable()
      .meta({ description: 'The community of a community-project resource; null for a project resource', example: 1 }),
    owningCommunityName: z
      .string()
      .nullable()
      .meta({ description: "That community's name; null for a project resource", example: 'Green Valley Makers' }),
    owner: z
      .object({
        privacyLevel: privacyLevelSchema.meta({ description: "The resource's own level", example: 4 }),
        circles,
      })
      .strict()
      .meta({
        description: "The resource's own level and its granted circles",
        example: resourcePrivacyExample.owner,
      }),
    shares: z
      .array(
        z
          .object({
            communityId: integer.meta({ description: 'The community the resource is shared into', example: 2 }),
            communityName,
            privacyLevel: privacyLevelSchema.meta({
              description: "The share's own level in that community",
              example: 2,
            }),
            circles,
          })
          .strict(),
      )
      .meta({
        description: 'Its shares into other communities, by community id, each with its own level and circles',
        example: resourcePrivacyExample.shares,
      }),
    shareCandidates: z
      .array(
        z
          .object({
            communityId: integer.meta({ description: 'A community the resource could be shared into', example: 2 }),
            communityName,
          })
          .strict(),
      )
      .meta({
        description:
          "The communities the resource's project belongs to, besides the owning one, that it is not shared into yet",
        example: [{ communityId: 2, communityName: 'Harbour Founders' }],
      }),
    canEdit: z
      .boolean()
      .meta({ description: 'Whether the caller may change the own level and circles', example: true }),
    canShareCrossCommunity: z
      .boolean()
      .meta({ description: 'Whether the caller may share it into other communities', example: true }),
  },
  { example: resourcePrivacyExample },
);

export type ResourcePrivacyAnswer = z.output<typeof resourcePrivacySchema>;
