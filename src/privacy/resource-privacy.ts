import { z } from 'zod';
import { component, integer, privacyLevel } from '../contract/primitives';

/**
 * docs/api.md's GetResourcePrivacy answer, stated once: built by src/privacy/privacy-queries.ts,
 * documented and checked by the API. See resource-record.ts for why it lives in this module.
 */

/** SPEC "Circle group", the items of `privacyCircles`. */
export const privacyCircleSchema = component('PrivacyCircle', {
  id: integer,
  name: z.string(),
  longName: z.string(),
  isActive: z.boolean(),
  projectId: integer.nullable(),
  communityId: integer.nullable(),
});

/** SPEC "Circle group (item of `circles` in privacy read responses)". */
export const circleGroupSchema = component('CircleGroup', {
  name: z.string(),
  isProject: z.boolean(),
  isCommunity: z.boolean(),
  privacyCircles: z.array(privacyCircleSchema),
});

export type CircleGroup = z.output<typeof circleGroupSchema>;

/** SPEC GetResourcePrivacy response body. */
export const resourcePrivacySchema = component('ResourcePrivacy', {
  resourceId: integer,
  isProjectScoped: z.boolean(),
  owningCommunityId: integer.nullable(),
  owningCommunityName: z.string().nullable(),
  owner: z.object({ privacyLevel, circles: z.array(circleGroupSchema) }).strict(),
  shares: z.array(
    z
      .object({ communityId: integer, communityName: z.string(), privacyLevel, circles: z.array(circleGroupSchema) })
      .strict(),
  ),
  shareCandidates: z.array(z.object({ communityId: integer, communityName: z.string() }).strict()),
  canEdit: z.boolean(),
  canShareCrossCommunity: z.boolean(),
});

export type ResourcePrivacyAnswer = z.output<typeof resourcePrivacySchema>;
