import type { components } from '../../clients/typescript/schema';
import type { HttpResult, TestServer } from './test-server';

/**
 * A client of the resource endpoints (docs/api.md "GetResourceList", "SaveProjectResource",
 * "RemoveProjectResource"), plus a checker of the resource record's field types. HTTP only.
 */

type Schemas = components['schemas'];

export type SharedWith = Schemas['SharedWith'];

/** docs/api.md "Resource record", as the published client types it. */
export type ResourceRecord = Schemas['ResourceRecord'];

export type ResourceList = Schemas['ResourceList'];

export type Problem = Schemas['Problem'];

/** A body that is either the answer or, on an error status, a problem: read `type` after checking the status. */
export type Answer<T> = T & Partial<Problem>;

/** The scope shapes of docs/api.md "Scope shapes". */
export const scope = {
  communityProject: (communityProjectId: number) => ({ communityProjectId }),
  projectInCommunity: (projectId: number, communityId: number) => ({ projectId, communityId }),
  project: (projectId: number) => ({ projectId, communityProjectId: 0, communityId: 0 }),
  paragraph: (paragraphId: number) => ({ paragraphId }),
};

let counter = 0;

/** A valid create body; a scope shape and any override go on top. */
export function newResource(scopeFields: Record<string, unknown>, overrides: Record<string, unknown> = {}) {
  counter += 1;
  return {
    id: 0,
    name: `Resource ${counter}`,
    description: `Description ${counter}`,
    resourceUrl: `https://example.org/doc-${counter}`,
    privacyLevel: 1,
    icon: 'book',
    resourceTags: [],
    ...scopeFields,
    ...overrides,
  };
}

export function resourceApi(server: TestServer) {
  const tokenOf = (userId: number): Promise<string> => server.sessionToken(userId);
  return {
    tokenOf,
    async save<T = ResourceRecord>(userId: number, body: unknown): Promise<HttpResult<Answer<T>>> {
      return server.post<Answer<T>>('/api/Resource/SaveProjectResource', body, { token: await tokenOf(userId) });
    },
    /** Creates a resource and insists it worked: for the givens of a test. */
    async create(userId: number, body: unknown): Promise<ResourceRecord> {
      const res = await server.post<ResourceRecord>('/api/Resource/SaveProjectResource', body, {
        token: await tokenOf(userId),
      });
      if (res.status !== 200) throw new Error(`given: create failed with ${res.status} ${res.text}`);
      return res.body;
    },
    async list<T = ResourceList>(userId: number, body: unknown): Promise<HttpResult<Answer<T>>> {
      return server.post<Answer<T>>('/api/Project/GetResourceList', body, { token: await tokenOf(userId) });
    },
    /** The list, insisting on a 200: for the givens and thens of a test. */
    async listOk(userId: number, body: unknown): Promise<ResourceList> {
      const res = await server.post<ResourceList>('/api/Project/GetResourceList', body, {
        token: await tokenOf(userId),
      });
      if (res.status !== 200) throw new Error(`list failed with ${res.status} ${res.text}`);
      return res.body;
    },
    async remove<T = { statusCode: number }>(userId: number, id: number | string): Promise<HttpResult<Answer<T>>> {
      return server.get<Answer<T>>(`/api/Resource/RemoveProjectResource?id=${encodeURIComponent(String(id))}`, {
        token: await tokenOf(userId),
      });
    },
  };
}

export type ResourceApi = ReturnType<typeof resourceApi>;

/** Ids of a list answer, in order. */
export const idsOf = (list: { resources: { list: { id: number }[] } }): number[] =>
  list.resources.list.map((r) => r.id);

/** The `field` of every error of a problem body. */
export const fieldsOf = (body: unknown): string[] => ((body as Problem | undefined)?.errors ?? []).map((e) => e.field);

// ---------------------------------------------------------------------------------------------
// Type checker for docs/api.md's resource record.

type Check = (value: unknown) => boolean;

/** An ISO 8601 date-time with its offset (Z or ±hh:mm). */
export const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

const integer: Check = (v) => typeof v === 'number' && Number.isInteger(v);
const string: Check = (v) => typeof v === 'string';
const boolean: Check = (v) => typeof v === 'boolean';
const nullable =
  (check: Check): Check =>
  (v) =>
    v === null || check(v);
const isoTimestamp: Check = (v) => typeof v === 'string' && ISO_8601.test(v) && !Number.isNaN(Date.parse(v));
const arrayOf =
  (check: Check): Check =>
  (v) =>
    Array.isArray(v) && v.every(check);
const objectOf =
  (shape: Record<string, Check>): Check =>
  (v) =>
    typeof v === 'object' &&
    v !== null &&
    !Array.isArray(v) &&
    Object.keys(v).sort().join() === Object.keys(shape).sort().join() &&
    Object.entries(shape).every(([key, check]) => check((v as Record<string, unknown>)[key]));
const oneOf =
  (...values: number[]): Check =>
  (v) =>
    typeof v === 'number' && values.includes(v);

/** docs/api.md "Resource record": every field and its type, in the contract's order. */
export const RECORD_SCHEMA: Record<keyof ResourceRecord, Check> = {
  id: integer,
  name: string,
  description: string,
  resourceUrl: string,
  resourceType: oneOf(0, 1, 2, 3),
  image: string,
  icon: string,
  postDate: isoTimestamp,
  lastUpdated: isoTimestamp,
  resourceTags: arrayOf(string),
  privacyLevel: oneOf(1, 2, 3, 4, 5),
  effectivePrivacyLevel: oneOf(1, 2, 3, 4, 5),
  originCommunityId: nullable(integer),
  originCommunityName: nullable(string),
  currentlySharedWith: arrayOf(
    objectOf({ communityId: integer, communityName: string, privacyLevel: oneOf(1, 2, 3, 4, 5) }),
  ),
  canEdit: nullable(boolean),
  isProjectScoped: boolean,
  isCommunityProjectScoped: boolean,
  projectId: nullable(integer),
  communityProjectId: nullable(integer),
  paragraphId: nullable(integer),
};

/** docs/api.md "SaveProjectResource" response: these fields of the record, no more. */
export const SAVED_FIELDS = [
  'id',
  'name',
  'description',
  'resourceUrl',
  'resourceType',
  'icon',
  'postDate',
  'lastUpdated',
  'resourceTags',
  'privacyLevel',
  'effectivePrivacyLevel',
  'currentlySharedWith',
  'canEdit',
  'isProjectScoped',
  'isCommunityProjectScoped',
  'projectId',
  'communityProjectId',
  'paragraphId',
] as const satisfies readonly (keyof ResourceRecord)[];

/**
 * What is wrong with a record against the schema, for the given fields (default: the whole
 * record): missing fields, fields of the wrong type, and fields docs/api.md does not list. [] when
 * it conforms, so a test can `expect(recordProblems(r)).toEqual([])` and read the reasons.
 */
export function recordProblems(
  record: unknown,
  fields: readonly (keyof ResourceRecord)[] = Object.keys(RECORD_SCHEMA) as (keyof ResourceRecord)[],
): string[] {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return ['not an object'];
  const value = record as Record<string, unknown>;
  const problems: string[] = [];
  for (const field of fields) {
    if (!(field in value)) problems.push(`${field}: missing`);
    else if (!RECORD_SCHEMA[field](value[field])) problems.push(`${field}: unexpected ${JSON.stringify(value[field])}`);
  }
  for (const key of Object.keys(value)) {
    if (!(fields as readonly string[]).includes(key)) problems.push(`${key}: not a field of the record`);
  }
  if (value.isProjectScoped === value.isCommunityProjectScoped) problems.push('exactly one scope flag must be true');
  return problems;
}
