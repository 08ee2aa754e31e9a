/**
 * Resources, their views and a naive answer to a page query: the fixtures and oracle that the
 * resource-view contract suite and the MongoDB query unit test share.
 */
import type { Resource } from '../../src/resources/resource';
import { viewRecords } from '../../src/resources/resource-projection';
import type { Audience, ResourceViewRecord, ViewPage, ViewPageQuery } from '../../src/resources/resource-view-store';
import { admits, isAfter } from '../../src/resources/resource-view-store';
import { D, O, OTHER_PROJECT, P } from './resource-fixtures';

/** The projects and communities of the resource rules' small world. */
export { D, O, OTHER_PROJECT, P };

export const PARAGRAPH = 11;
export const OTHER_PARAGRAPH = 12;
export const CIRCLE = 501;

export const projectView = (projectId = P) => ({ viewKey: `p:${projectId}`, projectId });
export const communityView = (communityId: number, projectId = P) => ({ viewKey: `c:${communityId}`, projectId });

export const principals = (...names: string[]): Audience => ({ kind: 'principals', principals: names });
export const everything: Audience = { kind: 'everything' };

export function resource(resourceId: number, over: Partial<Resource> = {}): Resource {
  return {
    resourceId,
    scope: { kind: 'project', projectId: P },
    paragraphId: null,
    name: `Resource ${resourceId}`,
    description: '',
    resourceUrl: `https://example.org/${resourceId}.pdf`,
    resourceType: 0,
    image: '',
    icon: '',
    tags: [],
    postDate: '2025-01-01T00:00:00.000Z',
    lastUpdated: '2025-01-01T00:00:00.000Z',
    createdBy: 1,
    createdByMentor: false,
    owner: { privacyLevel: 1, circles: [] },
    shares: [],
    ...over,
  };
}

/** A post date per day from 2025-01-01; equal days make ties that the id must break. */
export const day = (n: number): string => new Date(Date.UTC(2025, 0, 1 + n)).toISOString();

/** The content fields of a ResourceCreated or ResourceUpdated event, the same file each time. */
const eventContent = (tags: string[]) => ({
  description: '',
  resourceUrl: 'https://example.org/a.pdf',
  resourceType: 0,
  image: '',
  icon: '',
  tags,
});

/** The data of a ResourceCreated event: a public project resource of P, posted on day 0. */
export const createdData = (resourceId: number, name = `Resource ${resourceId}`) => ({
  resourceId,
  scope: { kind: 'project', projectId: P },
  paragraphId: null,
  name,
  ...eventContent(['a']),
  privacyLevel: 1,
  createdBy: 1,
  createdByMentor: false,
  postDate: day(0),
});

/** The data of a ResourceUpdated event on day 1: a new name and the tag `b`. */
export const updatedData = (resourceId: number, name: string) => ({
  resourceId,
  name,
  ...eventContent(['b']),
  lastUpdated: day(1),
});

/**
 * A view of `n` project resources of P (P in community O) where the audiences are uneven: most
 * are public, one in 7 is for the team, one in 50 for the members of CIRCLE. Paragraphs, tags,
 * texts and post dates vary so that every filter and both orders have work to do.
 */
export function largeView(n: number, firstId = 1000): Resource[] {
  return Array.from({ length: n }, (_, i) => {
    const id = firstId + i;
    const level = i % 50 === 0 ? 4 : i % 7 === 0 ? 3 : 1;
    return resource(id, {
      paragraphId: i % 3 === 0 ? PARAGRAPH : i % 3 === 1 ? OTHER_PARAGRAPH : null,
      name: i % 13 === 0 ? `Solar Pump ${id}` : `Resource ${id}`,
      description: i % 17 === 0 ? 'how to fix a PUMP' : 'notes',
      tags: i % 5 === 0 ? ['Water'] : i % 11 === 0 ? ['Energy', 'water'] : [],
      postDate: day(Math.floor(i / 4)),
      owner:
        level === 4
          ? { privacyLevel: 4, circles: [{ circleId: CIRCLE, projectId: P, communityId: null }] }
          : { privacyLevel: level, circles: [] },
    });
  });
}

/** What the store should hold: each resource's views, given the communities its project is in. */
export class ViewModel {
  readonly views = new Map<number, ResourceViewRecord[]>();

  put(resource: Resource, communities: readonly number[]): ResourceViewRecord[] {
    const views = viewRecords(resource, communities);
    this.views.set(resource.resourceId, views);
    return views;
  }

  set(resourceId: number, views: readonly ResourceViewRecord[]): void {
    this.views.set(resourceId, [...views]);
  }

  remove(resourceId: number): void {
    this.views.delete(resourceId);
  }

  all(): ResourceViewRecord[] {
    return [...this.views.values()].flat();
  }
}

export const query = (over: Partial<ViewPageQuery> = {}): ViewPageQuery => ({
  ...projectView(),
  audience: everything,
  paragraphId: null,
  concept: null,
  tags: [],
  orderBy: 0,
  skip: 0,
  take: 20,
  ...over,
});

/** The page by brute force: filter every view, sort, slice. */
export function naivePage(views: readonly ResourceViewRecord[], q: ViewPageQuery): ViewPage {
  const matches = views.filter(
    (v) =>
      v.viewKey === q.viewKey &&
      v.projectId === q.projectId &&
      admits(q.audience, v.audienceKey) &&
      (q.paragraphId === null || (v.paragraphId ?? 0) === q.paragraphId) &&
      (q.concept === null ||
        [v.name, v.description, ...v.resourceTags].some((t) => t.toLowerCase().includes(q.concept as string))) &&
      (q.tags.length === 0 || v.tagsLower.some((t) => q.tags.includes(t))),
  );
  const sorted = [...matches].sort((a, b) =>
    q.orderBy === 0
      ? a.resourceId - b.resourceId
      : a.postDate < b.postDate
        ? 1
        : a.postDate > b.postDate
          ? -1
          : b.resourceId - a.resourceId,
  );
  const after = q.after;
  const rest = after ? sorted.filter((v) => isAfter(q.orderBy, after, v)) : sorted;
  return { count: sorted.length, list: q.take === 0 ? [] : rest.slice(q.skip, q.skip + q.take) };
}

/** A spread of page queries over one view: both orders, pages, filters, and callers from few to all. */
export function pageQueries(view: { viewKey: string; projectId: number }): ViewPageQuery[] {
  const audiences = [
    everything,
    principals('public'),
    principals(`circle:${CIRCLE}`),
    principals(`team:p:${P}`),
    principals('member:c:999'),
  ];
  const queries: ViewPageQuery[] = [];
  for (const audience of audiences)
    for (const orderBy of [0, 1] as const)
      for (const [skip, take] of [
        [0, 25],
        [40, 7],
        [1990, 1000],
        [0, 0],
      ] as const) {
        queries.push(query({ ...view, audience, orderBy, skip, take }));
        queries.push(query({ ...view, audience, orderBy, skip, take, paragraphId: PARAGRAPH, concept: 'pump' }));
        queries.push(query({ ...view, audience, orderBy, skip, take, tags: ['water', 'energy'] }));
      }
  return queries;
}
