import type { components } from '../../clients/typescript/schema';
import { demo } from './demo-directory';
import type { HttpResult, TestServer } from './test-server';

/**
 * A client of the privacy endpoints (docs/api.md "GetResourcePrivacy", "SaveResourcePrivacy",
 * "UnshareResourceFromCommunity") and of the few resource endpoints their tests need as givens.
 * HTTP only.
 */

type Schemas = components['schemas'];

export type CircleGrant = { circleId: number; projectId: number | null; communityId: number | null };

export type PrivacyCircle = Schemas['PrivacyCircle'];

export type CircleGroup = Schemas['CircleGroup'];

export type ResourcePrivacy = Schemas['ResourcePrivacy'];

/** The fields of a listed resource that the privacy tests read. */
export type ListedResource = Pick<
  Schemas['ResourceRecord'],
  | 'id'
  | 'privacyLevel'
  | 'effectivePrivacyLevel'
  | 'originCommunityId'
  | 'originCommunityName'
  | 'isProjectScoped'
  | 'currentlySharedWith'
>;

export type ResourceList = { resources: { count: number; list: ListedResource[] } };

export type Problem = Schemas['Problem'];

/** A project circle grant, or a community circle grant. */
export const projectCircle = (circleId: number, projectId: number): CircleGrant => ({
  circleId,
  projectId,
  communityId: null,
});
export const communityCircle = (circleId: number, communityId: number): CircleGrant => ({
  circleId,
  projectId: null,
  communityId,
});

/** A group of circles as a privacy read lists them: the project's circles, or a community's. */
export const projectCircles = (name: string, privacyCircles: PrivacyCircle[]): CircleGroup => ({
  name,
  isProject: true,
  isCommunity: false,
  privacyCircles,
});
export const communityCircles = (name: string, privacyCircles: PrivacyCircle[]): CircleGroup => ({
  name,
  isProject: false,
  isCommunity: true,
  privacyCircles,
});

export type Block = { privacyLevel: number; circlesToAdd?: CircleGrant[]; circlesToRemove?: CircleGrant[] };
export type SavePrivacyBody = {
  resourceId: number;
  owner?: Block;
  sharesToUpsert?: (Block & { communityId: number })[];
  sharesToRemove?: { communityId: number }[];
};

/** The `field` of every error of a problem body. */
export const fieldsOf = (body: unknown): string[] => ((body as Problem | undefined)?.errors ?? []).map((e) => e.field);

/** Where a new resource goes: a community-project resource owned by a community, or a project resource. */
export type Where = { projectId: number; communityId: number } | { projectId: number; communityId: null };

let counter = 0;

export function privacyApi(server: TestServer) {
  const tokenOf = (userId: number): Promise<string> => server.sessionToken(userId);

  const api = {
    tokenOf,
    async read(userId: number, resourceId: number | string): Promise<HttpResult<ResourcePrivacy>> {
      return server.get<ResourcePrivacy>(
        `/api/Privacy/GetResourcePrivacy?resourceId=${encodeURIComponent(String(resourceId))}`,
        {
          token: await tokenOf(userId),
        },
      );
    },
    /** The privacy as the project's team sees it (every share): for the givens and thens of a test. */
    async readAll(resourceId: number): Promise<ResourcePrivacy> {
      const res = await api.read(demo.users.team, resourceId);
      if (res.status !== 200) throw new Error(`read privacy failed with ${res.status} ${res.text}`);
      return res.body;
    },
    async save(userId: number, body: unknown): Promise<HttpResult> {
      return server.post('/api/Privacy/SaveResourcePrivacy', body, { token: await tokenOf(userId) });
    },
    /** A change that must work: for the givens of a test. */
    async saveOk(userId: number, body: SavePrivacyBody): Promise<void> {
      const res = await api.save(userId, body);
      if (res.status !== 200) throw new Error(`given: save privacy failed with ${res.status} ${res.text}`);
    },
    async unshare(userId: number, body: unknown): Promise<HttpResult> {
      return server.post('/api/Privacy/UnshareResourceFromCommunity', body, { token: await tokenOf(userId) });
    },
    /** Creates a resource through SaveProjectResource and insists it worked; answers its id. */
    async create(userId: number, where: Where, privacyLevel = 1): Promise<number> {
      counter += 1;
      const scopeFields =
        where.communityId === null
          ? { projectId: where.projectId, communityProjectId: 0, communityId: 0 }
          : { projectId: where.projectId, communityId: where.communityId };
      const res = await server.post<{ id: number }>(
        '/api/Resource/SaveProjectResource',
        {
          id: 0,
          name: `Privacy ${counter}`,
          resourceUrl: `https://example.org/privacy-${counter}`,
          privacyLevel,
          ...scopeFields,
        },
        { token: await tokenOf(userId) },
      );
      if (res.status !== 200) throw new Error(`given: create failed with ${res.status} ${res.text}`);
      return res.body.id;
    },
    async remove(userId: number, resourceId: number): Promise<HttpResult> {
      return server.get(`/api/Resource/RemoveProjectResource?id=${resourceId}`, { token: await tokenOf(userId) });
    },
    async list(userId: number, projectId: number, communityId: number | null): Promise<HttpResult<ResourceList>> {
      return server.post<ResourceList>(
        '/api/Project/GetResourceList',
        { projectId, ...(communityId === null ? {} : { communityId }), take: 1000 },
        { token: await tokenOf(userId) },
      );
    },
    /** The record of one resource in a caller's list of a view, or undefined when it is not listed. */
    async listed(
      userId: number,
      projectId: number,
      communityId: number | null,
      resourceId: number,
    ): Promise<ListedResource | undefined> {
      const res = await api.list(userId, projectId, communityId);
      if (res.status !== 200) throw new Error(`list failed with ${res.status} ${res.text}`);
      return res.body.resources.list.find((r) => r.id === resourceId);
    },
  };
  return api;
}

export type PrivacyApi = ReturnType<typeof privacyApi>;
