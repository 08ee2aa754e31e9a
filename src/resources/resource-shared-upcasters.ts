import type { ResourceShared } from './resource-events';

/** ResourceShared as version 1 stored it: before a share recorded why it was made. */
export type ResourceSharedV1 = {
  readonly resourceId: number;
  readonly communityId: number;
  readonly privacyLevel: number;
};

/** Version 1 → 2: a share recorded before reasons were kept has none (null). */
export const resourceSharedV1ToV2 = (data: ResourceSharedV1): ResourceShared['data'] => ({
  resourceId: data.resourceId,
  communityId: data.communityId,
  privacyLevel: data.privacyLevel as ResourceShared['data']['privacyLevel'],
  reason: null,
});
