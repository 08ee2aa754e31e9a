import { z } from 'zod';
import { queryInteger } from '../contract/primitives';
import { paginated } from '../api/pagination';
import { OWN_LEVEL_CHOICES } from './access/privacy-policy';
import { REQUEST_FIELDS } from './resource-fields';

const id = z.number().int().min(0);

/**
 * The fields of the resource record a client may send back as it got it: known, and ignored
 * (the record is the answer of GetResourceList and of this endpoint).
 */
export const READ_ONLY_RECORD_FIELDS = [
  'resourceType',
  'image',
  'postDate',
  'lastUpdated',
  'effectivePrivacyLevel',
  'originCommunityId',
  'originCommunityName',
  'currentlySharedWith',
  'canEdit',
  'isProjectScoped',
  'isCommunityProjectScoped',
] as const;

/**
 * The read-only fields in the request's schema, so that the document accepts what the service does: a
 * record sent back as it was received. Any value is taken, since none is read.
 */
const readOnlyRecordFields = Object.fromEntries(
  READ_ONLY_RECORD_FIELDS.map((field) => [
    field,
    z.unknown().optional().meta({
      description: 'A read-only field of the resource record: accepted and ignored, absent or not',
    }),
  ]),
) as Record<(typeof READ_ONLY_RECORD_FIELDS)[number], z.ZodOptional<z.ZodUnknown>>;

// The editable fields named where the published document has always had them (the client is
// generated from it, in its order); one added since goes after the tags.
const { name, description, resourceUrl, icon, resourceTags, ...addedFields } = REQUEST_FIELDS;

/**
 * Strict: a field it does not know (a typo) is a 400 naming it, besides the record's read-only fields, which
 * are ignored.
 */
export const saveProjectResourceBody = z
  .strictObject({
    id: id.meta({
      description:
        '0 creates a resource; the id of an existing one updates it (its scope then stays the one it was created with)',
      example: 0,
    }),
    name,
    description,
    resourceUrl,
    /** Which levels are valid depends on the scope: the domain decides, zod only asks for an integer. */
    privacyLevel: z.number().int().meta({
      description: OWN_LEVEL_CHOICES,
      example: 2,
    }),
    icon,
    resourceTags,
    ...addedFields,
    projectId: id.nullish().meta({
      description:
        'Creation: the project (with `communityId`, or with `communityProjectId` and ' +
        '`communityId` sent as 0 for a project resource); ignored on an update; default null',
      default: null,
      example: null,
    }),
    communityProjectId: id.nullish().meta({
      description:
        'Creation: the community project the resource belongs to (demo: 1000 is project 10 in community 1); ' +
        'ignored on an update; default null',
      default: null,
      example: 1000,
    }),
    communityId: id.nullish().meta({
      description:
        'Creation: with `projectId`, the community of the community project; 0 for a project resource; ' +
        'ignored on an update; default null',
      default: null,
      example: null,
    }),
    paragraphId: id.nullish().meta({
      description:
        'Creation: attach to a paragraph; its project (and community) give the scope; ' +
        'ignored on an update; default null',
      default: null,
      example: null,
    }),
    ...readOnlyRecordFields,
  })
  .meta({
    description: `Closed: an unknown field is a 400 naming it; the resource record's read-only fields (${READ_ONLY_RECORD_FIELDS.join(', ')}) are accepted and ignored.`,
    example: {
      id: 0,
      name: 'Pitch deck',
      resourceUrl: 'https://example.org/deck.pdf',
      privacyLevel: 2,
      resourceTags: ['pitch'],
      communityProjectId: 1000,
    },
  });

/** Strict: a field it does not know (`pagesize`) is a 400 naming it. */
export const getResourceListBody = paginated(
  {
    projectId: z.number().int().positive().meta({ description: 'The project whose resources are listed', example: 10 }),
    communityId: id.nullish().meta({
      description: "The community whose view of the project is listed; null or 0: the project's own view; default null",
      default: null,
      example: 1,
    }),
    paragraphId: id.nullish().meta({
      description: 'Only the resources attached to this paragraph; null or 0: all; default null',
      default: null,
      example: null,
    }),
    concept: z.string().max(200).nullish().meta({
      description: 'Only resources whose name or description contains this text (case-insensitive); default null: all',
      default: null,
      example: 'deck',
    }),
    tags: z.array(z.string().max(64)).max(50).nullish().meta({
      description: 'Only resources carrying any of these tags (case-insensitive); default none: no tag filter',
      default: [],
    }),
    orderBy: z
      .union([z.literal(0), z.literal(1)])
      .optional()
      .meta({ description: "0: the view's order (default); 1: most recently updated first", default: 0 }),
  },
  { strict: true },
).meta({ example: { projectId: 10, communityId: 1, skip: 0, take: 10 } });

export const removeProjectResourceQuery = z.object({
  id: queryInteger((n) => n.positive()).meta({ description: 'The resource to delete', example: 1 }),
});
