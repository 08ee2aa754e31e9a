import { z } from 'zod';
import { component, count, integer, isoTimestamp } from '../contract/primitives';
import { nextCursorSchema } from '../api/pagination';
import { LEVEL_NAMES } from './access/privacy-policy';
import { privacyLevelSchema } from './privacy-level-schema';
import { RECORD_FIELDS } from './resource-fields';

/**
 * docs/api.md's resource records, stated once: the queries (src/projections/resources) build answers
 * of these types and the API documents and checks them with these schemas. This module sits below
 * both so that neither reaches into the other's layer; it depends on zod, the privacy levels' table and
 * the editable fields' table only.
 *
 * Records are strict: an extra or a missing field fails. `component(id, shape)` (primitives.ts)
 * makes a record strict and names it as an OpenAPI component, referenced wherever it is used.
 */

export const sharedWithSchema = component('SharedWith', {
  communityId: integer.meta({ description: 'The community the resource is shared into', example: 2 }),
  communityName: z.string().meta({ description: "That community's name", example: 'Harbour Founders' }),
  privacyLevel: privacyLevelSchema.meta({ description: "The share's own level in that community", example: 2 }),
});

// The editable fields named where the published document has always had them (the client is
// generated from it, in its order); one added since goes after the tags.
const { name, description, resourceUrl, icon, resourceTags, ...addedFields } = RECORD_FIELDS;

/** The resource record (the items of `resources.list` in the list answer). */
export const resourceRecordSchema = component('ResourceRecord', {
  id: integer.meta({ description: 'The resource', example: 1 }),
  name,
  description,
  resourceUrl,
  resourceType: z.number().int().min(0).max(3).meta({ description: '0 other, 1 image, 2 video, 3 PDF', example: 3 }),
  image: z.string().meta({ description: 'A preview image URL; empty when none', example: '' }),
  icon,
  postDate: isoTimestamp.meta({ description: 'When it was created', example: '2025-03-01T10:00:00.000Z' }),
  lastUpdated: isoTimestamp.meta({ description: 'When it last changed', example: '2025-03-02T09:30:00.000Z' }),
  resourceTags,
  ...addedFields,
  privacyLevel: privacyLevelSchema.meta({
    description: `The resource's own level: ${LEVEL_NAMES}`,
    example: 2,
  }),
  effectivePrivacyLevel: privacyLevelSchema.meta({
    description: "The level that governs it in this view: its own, or the share's in a community it is shared into",
    example: 2,
  }),
  originCommunityId: integer.nullable().meta({
    description: 'In a community it is shared into: the community it comes from; otherwise null',
    example: null,
  }),
  originCommunityName: z
    .string()
    .nullable()
    .meta({ description: "That origin community's name; otherwise null", example: null }),
  currentlySharedWith: z.array(sharedWithSchema).meta({
    description: 'The shares the caller may see',
    example: [{ communityId: 2, communityName: 'Harbour Founders', privacyLevel: 2 }],
  }),
  canEdit: z.boolean().nullable().meta({ description: 'Whether the caller may change it', example: true }),
  isProjectScoped: z
    .boolean()
    .meta({ description: "A project resource (in the project's view and every community's)", example: false }),
  isCommunityProjectScoped: z.boolean().meta({ description: 'A resource of one community project', example: true }),
  projectId: integer.nullable().meta({ description: 'The project it belongs to', example: 10 }),
  communityProjectId: integer.nullable().meta({ description: 'Null for a project resource', example: 1000 }),
  paragraphId: integer.nullable().meta({ description: 'The paragraph it is attached to, or null', example: null }),
});

export type ResourceRecord = z.output<typeof resourceRecordSchema>;

const resourceExample = {
  id: 1,
  name: 'Pitch deck',
  description: 'The deck we show investors',
  resourceUrl: 'https://example.org/deck.pdf',
  resourceType: 3,
  image: '',
  icon: '',
  postDate: '2025-03-01T10:00:00.000Z',
  lastUpdated: '2025-03-02T09:30:00.000Z',
  resourceTags: ['pitch'],
  privacyLevel: 2,
  effectivePrivacyLevel: 2,
  originCommunityId: null,
  originCommunityName: null,
  currentlySharedWith: [{ communityId: 2, communityName: 'Harbour Founders', privacyLevel: 2 }],
  canEdit: true,
  isProjectScoped: false,
  isCommunityProjectScoped: true,
  projectId: 10,
  communityProjectId: 1000,
  paragraphId: null,
};

/** The GetResourceList answer. */
export const resourceListSchema = component('ResourceList', {
  canEditResources: z
    .boolean()
    .meta({ description: 'Whether the caller may create and change resources in this view', example: true }),
  canEditPrivacy: z.boolean().meta({ description: 'Whether the caller may change their privacy', example: true }),
  paragraphId: integer.nullable().meta({ description: 'The paragraph asked for, or null', example: null }),
  resources: z
    .object({
      count: count.meta({ description: 'How many resources the caller sees in this view, over all pages', example: 1 }),
      list: z.array(resourceRecordSchema).meta({
        description: 'This page of them (`skip` or `cursor`, `take`), in the order asked for',
        example: [resourceExample],
      }),
      nextCursor: nextCursorSchema,
    })
    .strict()
    .meta({
      description: 'The page: `{count, list}`',
      example: { count: 1, list: [resourceExample], nextCursor: null },
    }),
});

export type ResourceListAnswer = z.output<typeof resourceListSchema>;

/**
 * The SaveProjectResource answer: the saved resource, its fields typed as in the resource record,
 * all but those that only a list's view gives (the preview image, the community it came from).
 */
export const savedResourceSchema = resourceRecordSchema
  .omit({ image: true, originCommunityId: true, originCommunityName: true })
  .strict()
  .meta({ id: 'SavedResource' });

export type SavedResource = z.output<typeof savedResourceSchema>;

const SAVED_FIELDS = Object.keys(savedResourceSchema.shape) as (keyof SavedResource)[];

/** The saved-resource answer: the record's fields the contract lists for SaveProjectResource, and no other. */
export function savedResourceOf(record: ResourceRecord): SavedResource {
  return Object.fromEntries(SAVED_FIELDS.map((field) => [field, record[field]])) as SavedResource;
}

const RECORD_KEYS = Object.keys(resourceRecordSchema.shape) as (keyof ResourceRecord)[];

/** A record's fields in its schema's order, the order the document lists them and answers write them. */
export function inRecordOrder(record: ResourceRecord): ResourceRecord {
  return Object.fromEntries(RECORD_KEYS.map((field) => [field, record[field]])) as ResourceRecord;
}
