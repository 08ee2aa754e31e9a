import type { CircleFacts, ProjectFacts, Viewer } from '../directory/viewer';
import type { Command } from '../domain/event';
import type { CircleRef, ResourceContent, ResourcePlace } from './resource';

/**
 * The commands of a resource. Their body shape was validated by the caller; their metadata is
 * the decision context (the clock and the directory facts), loaded by the command layer.
 */

/** Raw, because which levels are valid depends on the resource and the block, which only decide knows. */
type RequestedLevel = { readonly privacyLevel: number };

/**
 * `resourceId` is allocated beforehand from the id sequence; `scope` is resolved by the caller
 * from the request's scope shape (or its paragraph).
 */
export type CreateResource = Command<
  'CreateResource',
  ResourcePlace & ResourceContent & RequestedLevel,
  ResourceDecisionContext
>;

export type UpdateResource = Command<
  'UpdateResource',
  Pick<ResourcePlace, 'resourceId'> & ResourceContent & RequestedLevel,
  ResourceDecisionContext
>;

export type DeleteResource = Command<'DeleteResource', { readonly resourceId: number }, ResourceDecisionContext>;

export type CircleChanges = {
  readonly circlesToAdd: readonly CircleRef[];
  readonly circlesToRemove: readonly CircleRef[];
};

export type OwnerPrivacyChange = CircleChanges & { readonly privacyLevel: number };
/** `reason`: why a new share is made, recorded on its ResourceShared (null: none given). */
export type ShareUpsert = CircleChanges & {
  readonly communityId: number;
  readonly privacyLevel: number;
  readonly reason?: string | null;
};
export type ShareRemoval = { readonly communityId: number };

/**
 * SaveResourcePrivacy: every block optional and independent, applied together or not at all.
 * UnshareResourceFromCommunity is this command with a single `sharesToRemove` entry.
 */
export type ChangeResourcePrivacy = Command<
  'ChangeResourcePrivacy',
  {
    readonly resourceId: number;
    readonly owner?: OwnerPrivacyChange;
    readonly sharesToUpsert: readonly ShareUpsert[];
    readonly sharesToRemove: readonly ShareRemoval[];
  },
  ResourceDecisionContext
>;

export type ResourceCommand = CreateResource | UpdateResource | DeleteResource | ChangeResourcePrivacy;

/** What decide needs besides the command's data and the state: every resource command's metadata. */
export type ResourceDecisionContext = {
  /** ISO 8601; the clock is read once per request, outside the domain. */
  readonly now: string;
  readonly viewer: Viewer;
  /** The resource's project (for a create: the scope's project). */
  readonly project: ProjectFacts;
  /** Every circle the command references; a circle missing here is unknown to the directory. */
  readonly circles: ReadonlyMap<number, CircleFacts>;
  /** Which of the communities the command shares into exist in the directory. */
  readonly knownCommunities: ReadonlySet<number>;
};
