import type { Event } from '../domain/event';
import type { PrivacyLevel } from './access/privacy-policy';
import type { CircleRef, DetectedType, ResourceContent, ResourcePlace } from './resource';

/**
 * All events of one resource live in one stream, `resource-<id>`, so its rules are checked against
 * one revision.
 */
export const RESOURCE_STREAM_PREFIX = 'resource-';
export const resourceStreamId = (resourceId: number): string => `${RESOURCE_STREAM_PREFIX}${resourceId}`;

/** Which privacy block a circle grant belongs to. */
export type BlockRef = { readonly kind: 'owner' } | { readonly kind: 'share'; readonly communityId: number };

export type ResourceCreated = Event<
  'ResourceCreated',
  ResourcePlace &
    ResourceContent &
    DetectedType & {
      readonly privacyLevel: PrivacyLevel;
      readonly createdBy: number;
      readonly createdByMentor: boolean;
      readonly postDate: string;
    }
>;

export type ResourceUpdated = Event<
  'ResourceUpdated',
  Pick<ResourcePlace, 'resourceId'> & ResourceContent & DetectedType & { readonly lastUpdated: string }
>;

export type OwnerPrivacyChanged = Event<
  'OwnerPrivacyChanged',
  { readonly resourceId: number; readonly privacyLevel: PrivacyLevel; readonly lastUpdated: string }
>;

/** A circle granted to or revoked from one block of a resource. */
type CircleChange = { readonly resourceId: number; readonly block: BlockRef; readonly circle: CircleRef };

export type CircleGranted = Event<'CircleGranted', CircleChange>;

export type CircleRevoked = Event<'CircleRevoked', CircleChange>;

/**
 * A new share starts with no circles; grants follow as CircleGranted events. Version 2
 * records why it was shared: `reason`, null when none was given; shares of version 1 are read
 * with null (resource-shared-upcasters.ts). Optional in the type for events built in memory.
 */
export type ResourceShared = Event<
  'ResourceShared',
  {
    readonly resourceId: number;
    readonly communityId: number;
    readonly privacyLevel: PrivacyLevel;
    readonly reason?: string | null;
  }
>;

export type SharePrivacyChanged = Event<
  'SharePrivacyChanged',
  { readonly resourceId: number; readonly communityId: number; readonly privacyLevel: PrivacyLevel }
>;

/** Removes the share together with its circles. */
export type ResourceUnshared = Event<'ResourceUnshared', { readonly resourceId: number; readonly communityId: number }>;

/** Carries the URL so that the file store can delete the upload once nothing references it. */
export type ResourceDeleted = Event<'ResourceDeleted', { readonly resourceId: number; readonly resourceUrl: string }>;

export type ResourceEvent =
  | ResourceCreated
  | ResourceUpdated
  | OwnerPrivacyChanged
  | CircleGranted
  | CircleRevoked
  | ResourceShared
  | SharePrivacyChanged
  | ResourceUnshared
  | ResourceDeleted;

export type ResourceEventType = ResourceEvent['type'];

/**
 * An event as decide produces it: without metadata, which the command layer stamps on append
 * (who, through which credential, under which request). Distributes over the union so that the
 * `type` still discriminates `data`.
 */
export type ResourceEventData = Unstamped<ResourceEvent>;
type Unstamped<E> = E extends unknown ? Omit<E, 'metadata'> : never;

/** Every event type of the stream: projectors subscribe to these. */
export const RESOURCE_EVENT_TYPES = [
  'ResourceCreated',
  'ResourceUpdated',
  'OwnerPrivacyChanged',
  'CircleGranted',
  'CircleRevoked',
  'ResourceShared',
  'SharePrivacyChanged',
  'ResourceUnshared',
  'ResourceDeleted',
] as const satisfies readonly ResourceEventType[];

// Fails to compile when a member of the union is missing from the list above.
const _everyTypeListed: ResourceEventType extends (typeof RESOURCE_EVENT_TYPES)[number] ? true : never = true;

const knownTypes: ReadonlySet<string> = new Set(RESOURCE_EVENT_TYPES);

/** Narrows a stored `{type, data}` to a resource event; the data is trusted, we wrote it. */
export function isResourceEvent(event: { readonly type: string; readonly data: unknown }): event is ResourceEventData {
  return knownTypes.has(event.type);
}
