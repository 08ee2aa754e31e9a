import { z } from 'zod';
import { privacyLevelSchema } from './privacy-level-schema';
import { resourceFieldsSchema } from './resource-fields';
import type { ResourceEventType } from './resource-events';

/**
 * The current shape of each resource event's data, as stored (docs/architecture.md
 * "How to change an event"). The TypeScript types stay in resource-events.ts; these check what a
 * log holds after upcasting (the golden-log test) and give each type its schema in the catalog.
 */
const id = z.number().int().positive();
const time = z.string().min(1);
const circle = z.strictObject({ circleId: id, projectId: id.nullable(), communityId: id.nullable() });
const block = z.union([
  z.strictObject({ kind: z.literal('owner') }),
  z.strictObject({ kind: z.literal('share'), communityId: id }),
]);
const scope = z.union([
  z.strictObject({ kind: z.literal('project'), projectId: id }),
  z.strictObject({ kind: z.literal('communityProject'), projectId: id, communityId: id, communityProjectId: id }),
]);
const content = {
  ...resourceFieldsSchema.shape,
  resourceType: z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)]),
  image: z.string(),
};
const circleChange = z.strictObject({ resourceId: id, block, circle });

/** The most a share's reason may hold (SaveResourcePrivacy's `sharesToUpsert[].reason`). */
export const SHARE_REASON_MAX = 500;

export const RESOURCE_EVENT_SCHEMAS = {
  ResourceCreated: z.strictObject({
    resourceId: id,
    scope,
    paragraphId: id.nullable(),
    ...content,
    privacyLevel: privacyLevelSchema,
    createdBy: id,
    createdByMentor: z.boolean(),
    postDate: time,
  }),
  ResourceUpdated: z.strictObject({ resourceId: id, ...content, lastUpdated: time }),
  OwnerPrivacyChanged: z.strictObject({ resourceId: id, privacyLevel: privacyLevelSchema, lastUpdated: time }),
  CircleGranted: circleChange,
  CircleRevoked: circleChange,
  /** Version 2: `reason`, why it was shared, null when none was given (or before version 2). */
  ResourceShared: z.strictObject({
    resourceId: id,
    communityId: id,
    privacyLevel: privacyLevelSchema,
    reason: z.string().min(1).max(SHARE_REASON_MAX).nullable(),
  }),
  SharePrivacyChanged: z.strictObject({ resourceId: id, communityId: id, privacyLevel: privacyLevelSchema }),
  ResourceUnshared: z.strictObject({ resourceId: id, communityId: id }),
  ResourceDeleted: z.strictObject({ resourceId: id, resourceUrl: z.string() }),
} as const satisfies Record<ResourceEventType, z.ZodType>;
