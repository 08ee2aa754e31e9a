import { z } from 'zod';
import type { AccountStatus } from '../../domain/auth/caller';
import type { Actor } from '../../domain/event';
import type {
  ApplicationDefinitionFilters,
  ApplicationItem,
  ApplicationListAnswer,
} from '../../projections/applications/application-queries';
import type { CircleGroup, PrivacyCircle, ResourcePrivacyAnswer } from '../../projections/resources/privacy-queries';
import type { ResourceListAnswer, ResourceRecord } from '../../projections/resources/resource-queries';
import type { Problem } from '../problem';

/**
 * The RESPONSE bodies, as SPEC.md states them (field names, types, nullability). They are the
 * source of the OpenAPI document (src/api/openapi.ts) and of the contract test
 * (test/api/openapi.int.test.ts). Records are strict: an extra or a missing field fails.
 *
 * `.meta({ id })` names a schema as an OpenAPI component, referenced wherever it is used.
 *
 * At the bottom, compile-time checks tie each schema to the TypeScript type the code builds the
 * answer with, so the two cannot drift.
 */

const integer = z.number().int();
const count = z.number().int().min(0);
/** A privacy level a resource or a share can hold: 0 and 6 are refused for resources (SPEC "Privacy level"). */
const privacyLevel = z.number().int().min(1).max(5).meta({ description: '1 Public, 2 Community, 3 Team, 4 Custom, 5 Team and mentors' });
const isoTimestamp = z.iso.datetime({ offset: true });

// ---------------------------------------------------------------------------------------------
// Resources

export const sharedWithSchema = z
  .object({ communityId: integer, communityName: z.string(), privacyLevel })
  .strict()
  .meta({ id: 'SharedWith' });

/** SPEC "Resource record (items of `resources.list` in the list response)". */
export const resourceRecordSchema = z
  .object({
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
  })
  .strict()
  .meta({ id: 'ResourceRecord' });

/** SPEC GetResourceList response body. */
export const resourceListSchema = z
  .object({
    canEditResources: z.boolean(),
    canEditPrivacy: z.boolean(),
    paragraphId: integer.nullable(),
    resources: z.object({ count, list: z.array(resourceRecordSchema) }).strict(),
  })
  .strict()
  .meta({ id: 'ResourceList' });

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

export const savedResourceSchema = resourceRecordSchema
  .pick(SAVED_RESOURCE_FIELDS)
  .strict()
  .meta({ id: 'SavedResource' });

/** SPEC RemoveProjectResource: `{statusCode: integer}` carrying 200. */
export const removeProjectResourceSchema = z.object({ statusCode: integer }).strict().meta({ id: 'StatusCode' });

// ---------------------------------------------------------------------------------------------
// Privacy

/** SPEC "Circle group", the items of `privacyCircles`. */
export const privacyCircleSchema = z
  .object({
    id: integer,
    name: z.string(),
    longName: z.string(),
    isActive: z.boolean(),
    projectId: integer.nullable(),
    communityId: integer.nullable(),
  })
  .strict()
  .meta({ id: 'PrivacyCircle' });

/** SPEC "Circle group (item of `circles` in privacy read responses)". */
export const circleGroupSchema = z
  .object({
    name: z.string(),
    isProject: z.boolean(),
    isCommunity: z.boolean(),
    privacyCircles: z.array(privacyCircleSchema),
  })
  .strict()
  .meta({ id: 'CircleGroup' });

/** SPEC GetResourcePrivacy response body. */
export const resourcePrivacySchema = z
  .object({
    resourceId: integer,
    isProjectScoped: z.boolean(),
    owningCommunityId: integer.nullable(),
    owningCommunityName: z.string().nullable(),
    owner: z.object({ privacyLevel, circles: z.array(circleGroupSchema) }).strict(),
    shares: z.array(
      z
        .object({ communityId: integer, communityName: z.string(), privacyLevel, circles: z.array(circleGroupSchema) })
        .strict(),
    ),
    shareCandidates: z.array(z.object({ communityId: integer, communityName: z.string() }).strict()),
    canEdit: z.boolean(),
    canShareCrossCommunity: z.boolean(),
  })
  .strict()
  .meta({ id: 'ResourcePrivacy' });

// ---------------------------------------------------------------------------------------------
// Applications (SPEC "Paginated endpoints")

const filterValues = z.array(z.string()).nullable();

/** SPEC: keys applicationTags ... applicationUserInterests, each may be null. */
export const applicationDefinitionFiltersSchema = z
  .object({
    applicationTags: filterValues,
    applicationCountries: filterValues,
    applicationStages: filterValues,
    applicationIndustries: filterValues,
    applicationSDGs: filterValues,
    applicationUserInterests: filterValues,
  })
  .strict()
  .meta({ id: 'ApplicationDefinitionFilters' });

/**
 * SPEC: "each carrying at least id (integer) and applicationDefinitionName (string)"; the other
 * fields are "not shown" there and are this service's choice, listed so that the item is strict.
 */
export const applicationItemSchema = z
  .object({
    id: integer,
    applicationDefinitionId: integer,
    applicationDefinitionName: z.string(),
    name: z.string(),
    submittedAt: isoTimestamp,
    tags: z.array(z.string()),
    country: z.string().nullable(),
    stage: z.string().nullable(),
    industry: z.string().nullable(),
    sdgs: z.array(z.string()),
    userInterests: z.array(z.string()),
  })
  .strict()
  .meta({ id: 'ApplicationItem' });

export const applicationListSchema = z
  .object({
    applicationDefinitionFilters: applicationDefinitionFiltersSchema,
    count,
    list: z.array(applicationItemSchema),
    filters: z.record(z.string(), z.unknown()).nullable(),
  })
  .strict()
  .meta({ id: 'ApplicationList' });

// ---------------------------------------------------------------------------------------------
// User, problems, and the service's own (non-SPEC) endpoints

/** GET /api/user/getcurrent (SPEC: "Response: not shown"; README fixes these six fields). */
export const currentUserSchema = z
  .object({
    id: integer,
    name: z.string(),
    status: z.enum(['active', 'inactive', 'banned']),
    credential: z.enum(['session', 'apiKey']),
    apiKeyId: integer.nullable(),
    impersonatorId: integer.nullable(),
  })
  .strict()
  .meta({ id: 'CurrentUser' });

export const fieldErrorSchema = z.object({ field: z.string(), message: z.string() }).strict().meta({ id: 'FieldError' });

/** RFC 9457 problem details, the body of every error (`application/problem+json`). */
export const problemSchema = z
  .object({
    type: z.string().meta({ description: 'Stable problem type, e.g. /problems/validation, /problems/forbidden' }),
    title: z.string(),
    status: z.number().int().min(400).max(599),
    detail: z.string().optional(),
    errors: z.array(fieldErrorSchema).readonly().optional(),
  })
  .strict()
  .meta({ id: 'Problem' });

/** POST /internal/directory/events. */
export const directoryFeedAnswerSchema = z
  .object({
    accepted: count,
    position: z.string().regex(/^[0-9]+$/).meta({ description: 'Event-store position of the batch, as a decimal string' }),
  })
  .strict()
  .meta({ id: 'DirectoryFeedAnswer' });

/** GET /internal/read-models/digest and POST /internal/read-models/rebuild. */
export const readModelDigestSchema = z
  .object({
    /** The read-model generation served (a blue/green rebuild moves to the next). */
    generation: z.number().int().nonnegative(),
    checkpoint: z.string().nullable(),
    digest: z.string(),
    counts: z.record(z.string(), count),
  })
  .strict()
  .meta({ id: 'ReadModelDigest' });

export const healthLiveSchema = z.object({ status: z.literal('ok') }).strict().meta({ id: 'HealthLive' });

const probe = z.enum(['ok', 'unreachable']);
export const healthReadySchema = z
  .object({
    status: z.enum(['ready', 'not ready']),
    checks: z
      .object({
        eventStore: probe,
        readStore: probe,
        cache: z.enum(['ok', 'degraded', 'unreachable']).meta({
          description: '"degraded": Redis is down; this process serves on its own cache and rate limits',
        }),
        projections: z.string().meta({ description: '"ok", or why the projections stopped' }),
      })
      .strict(),
  })
  .strict()
  .meta({ id: 'HealthReady' });

// ---------------------------------------------------------------------------------------------
// Compile-time checks: the zod-inferred types and the types the code builds answers with.

/**
 * True when A and B are assignable to each other and name the same keys (assignability alone
 * lets an optional key, such as a problem's `detail`, go missing on one side).
 */
type Mutual<A, B> = [A] extends [B]
  ? [B] extends [A]
    ? [keyof A] extends [keyof B]
      ? [keyof B] extends [keyof A]
        ? true
        : false
      : false
    : false
  : false;
type Assignable<From, To> = [From] extends [To] ? true : false;
type Assert<T extends true> = T;

/**
 * Where SPEC allows a null the service never sends, the code's type is the narrower one; the
 * mutual check widens exactly those fields, and a one-way check says the code stays inside SPEC.
 */
type Widen<T, K extends keyof T, Extra> = { [P in keyof T]: P extends K ? T[P] | Extra : T[P] };

/** SPEC: canEdit "boolean or null", projectId "integer or null"; the code always has both. */
type SpecResourceRecord = Widen<ResourceRecord, 'canEdit' | 'projectId', null>;
type SpecResourceList = Omit<ResourceListAnswer, 'resources'> & {
  resources: { count: number; list: SpecResourceRecord[] };
};
/** SPEC: every filter key "may be null", `filters` is "object or null"; the code sends arrays and null. */
type SpecApplicationList = Omit<ApplicationListAnswer, 'applicationDefinitionFilters' | 'filters'> & {
  applicationDefinitionFilters: Widen<ApplicationDefinitionFilters, keyof ApplicationDefinitionFilters, null>;
  filters: Record<string, unknown> | null;
};
/** What GET /api/user/getcurrent builds from the caller (src/api/routes/user-routes.ts). */
type CurrentUser = {
  id: number;
  name: string;
  status: AccountStatus;
  credential: Exclude<Actor['credential'], 'system'>;
  apiKeyId: number | null;
  impersonatorId: number | null;
};

type _ResponseTypeChecks = [
  Assert<Mutual<z.infer<typeof resourceRecordSchema>, SpecResourceRecord>>,
  Assert<Assignable<ResourceRecord, z.infer<typeof resourceRecordSchema>>>,
  Assert<Mutual<z.infer<typeof savedResourceSchema>, Pick<SpecResourceRecord, keyof typeof SAVED_RESOURCE_FIELDS>>>,
  Assert<Mutual<z.infer<typeof resourceListSchema>, SpecResourceList>>,
  Assert<Assignable<ResourceListAnswer, z.infer<typeof resourceListSchema>>>,
  Assert<Mutual<z.infer<typeof privacyCircleSchema>, PrivacyCircle>>,
  Assert<Mutual<z.infer<typeof circleGroupSchema>, CircleGroup>>,
  Assert<Mutual<z.infer<typeof resourcePrivacySchema>, ResourcePrivacyAnswer>>,
  Assert<Mutual<z.infer<typeof applicationItemSchema>, ApplicationItem>>,
  Assert<Mutual<z.infer<typeof applicationListSchema>, SpecApplicationList>>,
  Assert<Assignable<ApplicationListAnswer, z.infer<typeof applicationListSchema>>>,
  Assert<Mutual<z.infer<typeof currentUserSchema>, CurrentUser>>,
  Assert<Mutual<z.infer<typeof problemSchema>, Problem>>,
];
