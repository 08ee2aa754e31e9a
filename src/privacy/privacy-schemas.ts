import { z } from 'zod';
import { queryInteger } from '../contract/primitives';
import { SHARE_REASON_MAX } from '../resources/resource-event-schemas';
import { CIRCLE_LEVEL_NAMES, LEVEL_NAMES } from '../resources/access/privacy-policy';

/**
 * Request shapes of the privacy endpoints (GetResourcePrivacy, SaveResourcePrivacy,
 * UnshareResourceFromCommunity). Only the shape is checked here: which levels and circles are
 * valid for a block depends on the resource, which only the domain knows.
 */
const positiveId = z.number().int().positive();

/** Generous but bounded: one request never needs more, and a bound keeps a decision cheap. */
export const MAX_CIRCLES_PER_BLOCK = 100;
export const MAX_SHARES_PER_REQUEST = 100;

/** A JSON `null` or a missing array both mean "none". */
const listOf = <T extends z.ZodType>(item: T, max: number) =>
  z
    .array(item)
    .max(max)
    .nullish()
    .transform((v): z.infer<T>[] => v ?? []);

/**
 * A circle grant: exactly one of projectId (a project circle) and communityId (a community
 * circle) is set. A missing id counts as null; a 400 names the item, e.g.
 * `owner.circlesToAdd[0].projectId`.
 */
export const circleGrant = z
  .object({
    circleId: positiveId.meta({ description: 'The circle', example: 300 }),
    projectId: positiveId
      .nullish()
      .transform((v) => v ?? null)
      .meta({ description: 'Set for a project circle (its project); default null', default: null, example: null }),
    communityId: positiveId
      .nullish()
      .transform((v) => v ?? null)
      .meta({ description: 'Set for a community circle (its community); default null', default: null, example: 1 }),
  })
  .superRefine((grant, ctx) => {
    if ((grant.projectId === null) === (grant.communityId === null)) {
      ctx.addIssue({
        code: 'custom',
        path: ['projectId'],
        message: 'exactly one of projectId and communityId must be set',
      });
    }
  });

const circleChanges = {
  circlesToAdd: listOf(circleGrant, MAX_CIRCLES_PER_BLOCK).meta({
    description:
      `Circles to grant (their members see it at ${CIRCLE_LEVEL_NAMES}); exactly one of projectId and communityId ` +
      `per circle; default none; at most ${MAX_CIRCLES_PER_BLOCK}`,
    default: [],
    example: [{ circleId: 300, communityId: 1 }],
  }),
  circlesToRemove: listOf(circleGrant, MAX_CIRCLES_PER_BLOCK).meta({
    description: `Granted circles to withdraw; default none; at most ${MAX_CIRCLES_PER_BLOCK}`,
    default: [],
    example: [],
  }),
};

/** A privacy level stays a raw integer: 0, 6 or Community on a project resource are the domain's 400s. */
const privacyLevel = z.number().int();

/** Why a new share is made: recorded on its ResourceShared event and shown in the audit history. */
const shareReason = z
  .string()
  .min(1)
  .max(SHARE_REASON_MAX)
  .nullish()
  .meta({
    description:
      `Why the resource is shared (at most ${SHARE_REASON_MAX} characters): ` +
      'recorded with a new share, shown in its audit history; default none',
    default: null,
    example: 'Harbour Founders review the decks of their projects',
  });

/** Strict at the top level: an unknown field is a 400 naming it. */
export const saveResourcePrivacyBody = z
  .strictObject({
    resourceId: positiveId.meta({ description: 'The resource whose privacy changes', example: 1 }),
    owner: z
      .object({
        privacyLevel: privacyLevel.meta({
          description: `The resource's own level: ${LEVEL_NAMES}`,
          example: 4,
        }),
        ...circleChanges,
      })
      .nullish()
      .transform((v) => v ?? undefined)
      .meta({ description: "The resource's own level and granted circles; absent: unchanged" }),
    sharesToUpsert: listOf(
      z.object({
        communityId: positiveId.meta({ description: 'The community the resource is shared into', example: 2 }),
        privacyLevel: privacyLevel.meta({
          description: `The share's own level in that community: ${LEVEL_NAMES}`,
          example: 2,
        }),
        reason: shareReason,
        ...circleChanges,
      }),
      MAX_SHARES_PER_REQUEST,
    ).meta({
      description: `Shares to create or change, each into another community with its own level; default none; at most ${MAX_SHARES_PER_REQUEST}`,
      default: [],
    }),
    sharesToRemove: listOf(
      z.object({
        communityId: positiveId.meta({ description: 'The community whose share is withdrawn', example: 2 }),
      }),
      MAX_SHARES_PER_REQUEST,
    ).meta({
      description: 'Shares to withdraw, by community; default none',
      default: [],
    }),
  })
  .meta({ example: { resourceId: 1, sharesToUpsert: [{ communityId: 2, privacyLevel: 2 }] } });

export type SaveResourcePrivacyBody = z.infer<typeof saveResourcePrivacyBody>;

export const unshareResourceBody = z.strictObject({
  resourceId: positiveId.meta({ description: 'The shared resource', example: 1 }),
  communityId: positiveId.meta({ description: 'The community the share is withdrawn from', example: 2 }),
});

export const getResourcePrivacyQuery = z.object({
  resourceId: queryInteger((n) => n.positive()).meta({ description: 'The resource', example: 1 }),
});
