/**
 * The MongoDB adapters' filters, sorts, projections and guarded updates are pure documents: here
 * mingo evaluates them over the same fixtures the SQLite adapter holds, and they must give the
 * SQLite adapter's answers. This checks the production queries where no MongoDB answers.
 */
import { Query } from 'mingo';
import type { Document } from 'mongodb';
import { SqliteReadDb } from '../../src/infra/sqlite/sqlite-read-db';
import { SqliteResourceViewStore } from '../../src/infra/sqlite/sqlite-resource-view-store';
import { olderThan, positionOf, storedPosition } from '../../src/infra/mongo/mongo-guarded-write';
import {
  VIEW_PROJECTION,
  admittedKeys,
  pageFilter,
  pageSort,
  projectLinkWrite,
  resourceWrite,
  viewDocument,
  viewFilter,
} from '../../src/infra/mongo/mongo-resource-view-queries';
import type { ViewPage, ViewPageQuery } from '../../src/resources/resource-view-store';
import {
  O,
  ViewModel,
  communityView,
  largeView,
  pageQueries,
  projectView,
  query,
  resource,
} from '../resources/resource-view-fixtures';

const find = (docs: Document[], filter: Document, projection?: Document) =>
  new Query(filter).find<Document>(docs, projection);

/** What MongoResourceViewStore.page does, with mingo in place of the server. */
function mongoPage(docs: Document[], q: ViewPageQuery): ViewPage {
  let keys: string[] = [];
  if (q.audience.kind !== 'everything') {
    keys = admittedKeys(q, [
      ...new Set(
        find(docs, viewFilter(q))
          .all()
          .map((d) => d.audienceKey as string),
      ),
    ]);
    if (keys.length === 0) return { count: 0, list: [] };
  }
  const filter = pageFilter(q, keys);
  const count = find(docs, filter).all().length;
  if (q.take === 0 || count === 0) return { count, list: [] };
  const list = find(docs, filter, VIEW_PROJECTION).sort(pageSort(q.orderBy)).skip(q.skip).limit(q.take).all();
  return { count, list: list as unknown as ViewPage['list'] };
}

describe('resource view page queries', () => {
  it('given the same views in SQLite and as documents, when every query of the spread is evaluated by mingo, then it answers what SQLite answers', async () => {
    const read = SqliteReadDb.open(':memory:');
    const sqlite = new SqliteResourceViewStore(read);
    const model = new ViewModel();
    let position = 1n;
    for (const r of [
      ...largeView(400),
      resource(1, { name: 'Guide v1.2 (draft)', tags: ['C++'] }),
      resource(2, { name: 'Guide v1x2' }),
    ]) {
      await sqlite.putResource(r.resourceId, r, position++, model.put(r, [O]));
    }
    const docs = model.all().map((v) => viewDocument(v) as unknown as Document);
    const queries = [
      ...pageQueries(projectView()),
      ...pageQueries(communityView(O)),
      query({ concept: '1.2' }),
      query({ concept: '(draft)' }),
      query({ concept: 'c++', orderBy: 1 }),
      query({ concept: '.*' }),
      query({ tags: ['c++'] }),
      query({ paragraphId: 0 }),
      query({ skip: 390, take: 50 }),
    ];

    for (const q of queries) expect({ q, page: mongoPage(docs, q) }).toEqual({ q, page: await sqlite.page(q) });
    read.close();
  });

  it('given a view document, when projected for the reader, then it is exactly the stored record', () => {
    const [view] = new ViewModel().put(resource(1, { paragraphId: 11, tags: ['A'] }), [O]);
    const doc = viewDocument(view!);

    expect(doc).toMatchObject({ _id: `1|${view!.viewKey}`, paragraph: 11, search: ['resource 1', '', 'a'] });
    expect(find([doc as unknown as Document], { _id: doc._id }, VIEW_PROJECTION).all()).toEqual([view]);
  });
});

describe('guarded writes', () => {
  const guard = (stored: Document, position: bigint) => new Query(olderThan(1, position)).test(stored);

  it('given a stored position, when an event is newer, then the guard matches; when equal or older, it does not', () => {
    expect(guard({ _id: 1, position: 4 }, 5n)).toBe(true);
    expect(guard({ _id: 1, position: 5 }, 5n)).toBe(false);
    expect(guard({ _id: 1, position: 6 }, 5n)).toBe(false);
    expect(guard({ _id: 1 }, 5n)).toBe(true);
    expect(guard({ _id: 2, position: 1 }, 5n)).toBe(false);
  });

  it('given positions, when stored and read back, then they round-trip, and one past 2^53 is refused', () => {
    expect(positionOf(storedPosition(9_007_199_254_740_991n))).toBe(9_007_199_254_740_991n);
    expect(positionOf({ toString: () => '42' })).toBe(42n);
    expect(() => storedPosition(9_007_199_254_740_993n)).toThrow(RangeError);
  });

  it('given resource and link writes, when built, then a tombstone keeps its project and a link carries its removal', () => {
    expect(resourceWrite(1, null, 3n).update).toEqual({
      $set: { resource: null, position: 3 },
      $setOnInsert: { projectId: 0 },
    });
    expect(resourceWrite(1, resource(1), 3n).update).toEqual({
      $set: { projectId: 7, resource: resource(1), position: 3 },
    });
    expect(projectLinkWrite({ communityProjectId: 100, communityId: 10, projectId: 7 }, true, 4n)).toEqual({
      filter: olderThan(100, 4n),
      update: { $set: { communityId: 10, projectId: 7, removed: true, position: 4 } },
    });
  });
});
