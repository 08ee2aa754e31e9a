import { z } from 'zod';
import { component, count, integer, isoTimestamp, privacyLevel } from './primitives';

/**
 * SPEC.md's resource records, stated once: the queries (src/projections/resources) build answers
 * of these types and the API documents and checks them with these schemas. This module sits below
 * both so that neither reaches into the other's layer; it depends on zod only.
 *
 * Records are strict: an extra or a missing field fails. `component(id, shape)` (primitives.ts)
 * makes a record strict and names it as an OpenAPI component, referenced wherever it is used.
 */

export const sharedWithSchema = component('SharedWith', { communityId: integer, communityName: z.string(), privacyLevel });

/** SPEC "Resource record (items of `resources.list` in the list response)". */
export const resourceRecordSchema = component('ResourceRecord', {
  id: integer,
  name: z.string(),
  description: z.string(),
  resourceUrl: z.string(),
  resourceType: z.number().int().min(0).max(3).meta({ description: '0 other, 1 image, 2 video, 3 PDF' }),
  image: z.string(),
  icon: z.string(),
  postDate: isoTimestamp,
  lastUpdated: isoTimestamp,
  resourceTags: z.array(z.string()),
  privacyLevel,
  effectivePrivacyLevel: privacyLevel,
  originCommunityId: integer.nullable(),
  originCommunityName: z.string().nullable(),
  currentlySharedWith: z.array(sharedWithSchema),
  canEdit: z.boolean().nullable(),
  isProjectScoped: z.boolean(),
  isCommunityProjectScoped: z.boolean(),
  projectId: integer.nullable(),
  communityProjectId: integer.nullable(),
  paragraphId: integer.nullable(),
});

export type ResourceRecord = z.output<typeof resourceRecordSchema>;

/** SPEC GetResourceList response body. */
export const resourceListSchema = component('ResourceList', {
  canEditResources: z.boolean(),
  canEditPrivacy: z.boolean(),
  paragraphId: integer.nullable(),
  resources: z.object({ count, list: z.array(resourceRecordSchema) }).strict(),
});

export type ResourceListAnswer = z.output<typeof resourceListSchema>;

/** SPEC SaveProjectResource: "the saved resource with fields id, name, ... (types as in the resource record)". */
export const SAVED_RESOURCE_FIELDS = {
  id: true,
  name: true,
  description: true,
  resourceUrl: true,
  resourceType: true,
  icon: true,
  postDate: true,
  lastUpdated: true,
  resourceTags: true,
  privacyLevel: true,
  effectivePrivacyLevel: true,
  currentlySharedWith: true,
  canEdit: true,
  isProjectScoped: true,
  isCommunityProjectScoped: true,
  projectId: true,
  communityProjectId: true,
  paragraphId: true,
} as const;

export const savedResourceSchema = resourceRecordSchema.pick(SAVED_RESOURCE_FIELDS).strict().meta({ id: 'SavedResource' });

export type SavedResource = z.output<typeof savedResourceSchema>;

/** The saved-resource answer: the record's fields SPEC lists for SaveProjectResource, and no other. */
export function savedResourceOf(record: ResourceRecord): SavedResource {
  const fields = Object.keys(SAVED_RESOURCE_FIELDS) as (keyof SavedResource)[];
  return Object.fromEntries(fields.map((field) => [field, record[field]])) as SavedResource;
}
