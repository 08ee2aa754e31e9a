import { z } from 'zod';
import { paginated } from '../pagination';

const id = z.number().int().min(0);

/**
 * An external link (http or https) or a path the upload endpoint returned
 * (`folder/<random id>/<file name>`). Anything else — `javascript:`, `file:`, `../` — is refused.
 */
const storedPath = /^[A-Za-z0-9_-]{1,64}\/[A-Za-z0-9_-]{1,64}\/[^/\\\0]{1,255}$/;
export const resourceUrlSchema = z
  .string()
  .trim()
  .min(1)
  .max(2048)
  .refine((value) => {
    if (storedPath.test(value)) return !value.split('/').includes('..');
    try {
      const url = new URL(value);
      return url.protocol === 'http:' || url.protocol === 'https:';
    } catch {
      return false;
    }
  }, 'must be an http(s) URL or a path returned by the upload endpoint');

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

/** Strict: a field it does not know (a typo) is a 400 naming it, besides the record's read-only fields, which are ignored. */
export const saveProjectResourceBody = z.strictObject({
  id,
  name: z.string().trim().min(1).max(200),
  description: z.string().max(4000).nullish().transform((v) => v ?? ''),
  resourceUrl: resourceUrlSchema,
  /** Which levels are valid depends on the scope: the domain decides, zod only asks for an integer. */
  privacyLevel: z.number().int(),
  icon: z.string().max(200).nullish().transform((v) => v ?? ''),
  resourceTags: z.array(z.string().max(64)).max(50).nullish().transform((v) => v ?? []),
  projectId: id.nullish(),
  communityProjectId: id.nullish(),
  communityId: id.nullish(),
  paragraphId: id.nullish(),
}).meta({
  description: `Closed: an unknown field is a 400 naming it; the resource record's read-only fields (${READ_ONLY_RECORD_FIELDS.join(', ')}) are accepted and ignored.`,
});

/** Strict: a field it does not know (`pagesize`) is a 400 naming it. */
export const getResourceListBody = paginated({
  projectId: z.number().int().positive(),
  communityId: id.nullish(),
  paragraphId: id.nullish(),
  concept: z.string().max(200).nullish(),
  tags: z.array(z.string().max(64)).max(50).nullish(),
  orderBy: z.union([z.literal(0), z.literal(1)]).optional(),
}, { strict: true });

export const removeProjectResourceQuery = z.object({
  id: z.coerce.number().int().positive(),
});
