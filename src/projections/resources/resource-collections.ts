import type { CircleRef, Resource, ResourceScope } from '../../domain/resource/resource';
import type { Doc } from '../../infra/read-store/read-store';

export const RES = {
  /** The latest state of every live resource, as its decider folds it. */
  resources: 'resources',
  /** One document per (resource, view): the per-community visibility read model. */
  views: 'resource_views',
  /** This projection's own copy of which communities each project belongs to. */
  projectLinks: 'resource_project_links',
} as const;

export type ResourceDoc = Doc & {
  resourceId: number;
  projectId: number;
  resource: Resource;
  /** Global position of the last event folded in: replays of older events are skipped. */
  lastPosition: string;
};

export type ProjectLinkDoc = Doc & { communityProjectId: number; communityId: number; projectId: number };

export type ResourceViewDoc = Doc & {
  resourceId: number;
  viewKey: string;
  viewCommunityId: number | null;
  scope: ResourceScope;
  projectId: number;
  communityProjectId: number | null;
  ownerCommunityId: number | null;
  paragraphId: number | null;
  name: string;
  description: string;
  resourceUrl: string;
  resourceType: number;
  image: string;
  icon: string;
  resourceTags: string[];
  /** Lower-cased tags: tag filters are case-insensitive. */
  tagsLower: string[];
  postDate: string;
  lastUpdated: string;
  privacyLevel: number;
  effectivePrivacyLevel: number;
  governedBy: 'own' | 'share';
  circles: CircleRef[];
  originCommunityId: number | null;
  createdBy: number;
  createdByMentor: boolean;
  shares: { communityId: number; privacyLevel: number }[];
  /** Principal strings admitted to this view of the resource (DESIGN.md). */
  audience: string[];
};
