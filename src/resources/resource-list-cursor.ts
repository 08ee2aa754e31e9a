import type { PageCursors } from '../api/page-cursor';
import { validationError } from '../domain/errors';
import type { ResourceListQuery } from './resource-queries';
import type { ViewPageKey } from './resource-view-store';

/**
 * GetResourceList's cursors: a resource's sort key in the order asked ((postDate, id) most recent
 * first, the id alone in the view's order), tied to every other field of the query but the page's.
 */
export function resourceListCursors(cursors: PageCursors, query: Omit<ResourceListQuery, 'page' | 'after'>) {
  const identity = {
    list: 'GetResourceList',
    projectId: query.projectId,
    communityId: query.communityId,
    paragraphId: query.paragraphId,
    concept: query.concept,
    tags: query.tags,
    orderBy: query.orderBy,
  };
  return {
    seal: (key: ViewPageKey): string =>
      cursors.seal(identity, query.orderBy === 1 ? [key.postDate, key.resourceId] : [key.resourceId]),
    open: (cursor: string): ViewPageKey => {
      const key = cursors.open(cursor, identity);
      const [first, second] = key;
      if (query.orderBy === 1 && key.length === 2 && typeof first === 'string' && typeof second === 'number')
        return { postDate: first, resourceId: second };
      if (query.orderBy === 0 && key.length === 1 && typeof first === 'number')
        return { postDate: '', resourceId: first };
      throw validationError('cursor', 'cursor does not fit this list; start again without one');
    },
  };
}
