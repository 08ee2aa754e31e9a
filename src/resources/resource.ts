import type { PrivacyLevel } from './access/privacy-policy';
import type { ResourceFields } from './resource-fields';

/**
 * A granted circle as the client names it: exactly one of projectId/communityId is set, saying
 * whether it is a project circle or a community circle.
 */
export type CircleRef = {
  readonly circleId: number;
  readonly projectId: number | null;
  readonly communityId: number | null;
};

/** A level and, at Custom (4), the circles it grants. Used for the own privacy and for each share. */
export type PrivacyBlock = {
  readonly privacyLevel: PrivacyLevel;
  readonly circles: readonly CircleRef[];
};

/** The privacy that governs viewers coming from `communityId`, independent of the own level. */
export type Share = PrivacyBlock & { readonly communityId: number };

/** Fixed at creation; an update never moves a resource to another scope (docs/api.md "What the service manages"). */
export type ResourceScope =
  | { readonly kind: 'project'; readonly projectId: number }
  | {
      readonly kind: 'communityProject';
      readonly projectId: number;
      readonly communityId: number;
      readonly communityProjectId: number;
    };

export type ResourceType = 0 | 1 | 2 | 3;

/**
 * What a client writes on SaveProjectResource, create or update alike: the editable fields, one
 * list (./resource-fields.ts) for the commands, the events and the state, so a new field cannot be
 * recorded by one and forgotten by another.
 */
export type ResourceContent = ResourceFields;

/** What the service derives from the URL on every save, never what the client says. */
export type DetectedType = {
  readonly resourceType: ResourceType;
  readonly image: string;
};

/** Where a resource lives, fixed at creation. */
export type ResourcePlace = {
  readonly resourceId: number;
  readonly scope: ResourceScope;
  readonly paragraphId: number | null;
};

export type Resource = ResourcePlace &
  ResourceContent &
  DetectedType & {
    readonly postDate: string;
    readonly lastUpdated: string;
    readonly createdBy: number;
    /** Set when a mentor created it (its level was forced to Custom); edit rights follow createdBy alone. */
    readonly createdByMentor: boolean;
    readonly owner: PrivacyBlock;
    readonly shares: readonly Share[];
  };

export type ResourceState =
  | { readonly status: 'initial' }
  | { readonly status: 'active'; readonly resource: Resource }
  | { readonly status: 'deleted'; readonly resourceId: number };

/** The owning community of a community-project resource; null for a project resource. */
export function owningCommunityId(resource: Pick<Resource, 'scope'>): number | null {
  return resource.scope.kind === 'communityProject' ? resource.scope.communityId : null;
}

export function findShare(resource: Pick<Resource, 'shares'>, communityId: number): Share | undefined {
  return resource.shares.find((share) => share.communityId === communityId);
}
