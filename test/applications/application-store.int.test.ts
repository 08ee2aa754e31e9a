/**
 * The applications read model's contract, run against every document-store adapter: SQLite
 * always, the MongoDB adapter on the in-process mingo stand-in always, and on a real MongoDB when
 * one answers. Its writes are the directory feed's events, folded by the runner's side of the
 * document store (`documentProjection`), so the position guard under test is the generic one.
 */
import { MongoDocumentStore } from '../../src/infra/mongo/mongo-document-store';
import { SqliteDocumentStore } from '../../src/infra/sqlite/sqlite-document-store';
import {
  APPLICATIONS_READ_MODEL,
  type ApplicationDefinitionRecord,
  type ApplicationRecord,
} from '../../src/applications/application-projection';
import { applicationStore, type ApplicationStore } from '../../src/applications/application-queries';
import { DIRECTORY_STREAM } from '../../src/directory/directory-events';
import { documentProjection, scopeOf, type DocumentStore } from '../../src/projections/document-store';
import { application as applicationOf } from '../support/application-fixtures';
import { describeOnEveryReadDb, type OpenedStore, withFreshStore } from '../support/read-db-adapters';

const DEFINITION = 5;
const OTHER_DEFINITION = 6;

/** An application of DEFINITION, unless `over` names another. */
const application = (applicationId: number, over: Partial<ApplicationRecord> = {}): ApplicationRecord =>
  applicationOf(applicationId, { applicationDefinitionId: DEFINITION, ...over });

const fixtures: ApplicationRecord[] = [
  application(3, {
    submittedAt: '2025-02-02T00:00:00.000Z',
    tags: ['b', 'a'],
    country: 'Kenya',
    stage: 'idea',
    sdgs: ['13'],
  }),
  application(1, {
    submittedAt: '2025-02-01T00:00:00.000Z',
    tags: ['a', 'Zeta'],
    country: 'Chile',
    industry: 'energy',
    userInterests: ['éclair', 'zoo'],
  }),
  application(4, { submittedAt: '2025-02-02T00:00:00.000Z', tags: ['ä'], country: 'Kenya', sdgs: ['7', '13'] }),
  application(2, { submittedAt: '2025-02-03T00:00:00.000Z', stage: 'growth', userInterests: ['Zoo'] }),
  application(5, { submittedAt: '2025-02-02T00:00:00.000Z' }),
  application(9, { applicationDefinitionId: OTHER_DEFINITION, tags: ['other'], country: 'Peru' }),
];

/** The read model's queries, and its writes as the events that make them. */
type ApplicationReadModel = ApplicationStore & {
  putDefinition(definition: ApplicationDefinitionRecord, position: bigint): Promise<void>;
  putApplication(application: ApplicationRecord, position: bigint): Promise<void>;
};

function applicationReadModel(documents: DocumentStore): ApplicationReadModel {
  const projection = documentProjection(APPLICATIONS_READ_MODEL, documents);
  const apply = (type: string, data: unknown, position: bigint) =>
    projection.apply({
      streamId: DIRECTORY_STREAM,
      type,
      data,
      metadata: {
        actor: { userId: 1, credential: 'session' },
        correlationId: 'contract',
        at: '2025-01-01T00:00:00.000Z',
      },
      revision: position,
      position,
    });
  return {
    ...applicationStore(documents),
    putDefinition: (definition, position) => apply('ApplicationDefinitionUpserted', definition, position),
    putApplication: (application, position) => apply('ApplicationUpserted', application, position),
  };
}

export function describeApplicationStoreContract(
  name: string,
  open: () => Promise<OpenedStore<ApplicationReadModel>>,
): void {
  describe(`${name} honours the ApplicationStore contract`, () => {
    let store: ApplicationReadModel;
    withFreshStore(open, (opened) => (store = opened));

    const putAll = async (first = 1n) => {
      for (const [i, a] of fixtures.entries()) await store.putApplication(a, first + BigInt(i));
    };

    it('given a definition, when looked up, then its record; an unknown one is null', async () => {
      await store.putDefinition({ applicationDefinitionId: DEFINITION, name: 'Call', communityId: 10 }, 1n);

      expect(await store.definition(DEFINITION)).toEqual({
        applicationDefinitionId: DEFINITION,
        name: 'Call',
        communityId: 10,
      });
      expect(await store.definition(404)).toBeNull();
    });

    it('given applications, when paged by id, then ascending ids of that definition only, with its count', async () => {
      await putAll();

      expect(await store.page(DEFINITION, 0, { skip: 0, take: 10 })).toEqual({
        count: 5,
        list: [1, 2, 3, 4, 5].map((id) => fixtures.find((a) => a.applicationId === id)),
      });
      expect((await store.page(DEFINITION, 0, { skip: 1, take: 2 })).list.map((a) => a.applicationId)).toEqual([2, 3]);
      expect(await store.page(DEFINITION, 0, { skip: 10, take: 2 })).toEqual({ count: 5, list: [] });
      expect(await store.page(404, 0, { skip: 0, take: 10 })).toEqual({ count: 0, list: [] });
    });

    it('given equal submission times, when paged by recency, then ties go by id descending', async () => {
      await putAll();

      expect((await store.page(DEFINITION, 1, { skip: 0, take: 10 })).list.map((a) => a.applicationId)).toEqual([
        2, 5, 4, 3, 1,
      ]);
      expect((await store.page(DEFINITION, 1, { skip: 2, take: 2 })).list.map((a) => a.applicationId)).toEqual([4, 3]);
    });

    it('given applications, when asked for take 0, then only the count', async () => {
      await putAll();

      expect(await store.page(DEFINITION, 1, { skip: 0, take: 0 })).toEqual({ count: 5, list: [] });
    });

    it('given applications, when filter values are asked, then each field distinct, non-null, array elements unwound, in code-unit order', async () => {
      await putAll();

      expect(await store.filterValues(DEFINITION)).toEqual({
        tags: ['Zeta', 'a', 'b', 'ä'],
        country: ['Chile', 'Kenya'],
        stage: ['growth', 'idea'],
        industry: ['energy'],
        sdgs: ['13', '7'],
        userInterests: ['Zoo', 'zoo', 'éclair'],
      });
      expect(await store.filterValues(404)).toEqual({
        tags: [],
        country: [],
        stage: [],
        industry: [],
        sdgs: [],
        userInterests: [],
      });
    });

    it('given a newer application, when an older or equal put arrives, then nothing changes; a newer one replaces the whole record', async () => {
      await store.putApplication(application(1, { country: 'Chile', tags: ['a'] }), 5n);
      await store.putApplication(application(1, { country: 'Peru' }), 4n);
      await store.putApplication(application(1, { country: 'Peru' }), 5n);
      expect((await store.page(DEFINITION, 0, { skip: 0, take: 1 })).list).toEqual([
        application(1, { country: 'Chile', tags: ['a'] }),
      ]);

      await store.putApplication(application(1, { stage: 'idea' }), 6n);
      expect((await store.page(DEFINITION, 0, { skip: 0, take: 1 })).list).toEqual([application(1, { stage: 'idea' })]);
      expect((await store.filterValues(DEFINITION)).country).toEqual([]);
    });

    it('given a newer definition, when an older put arrives, then nothing changes', async () => {
      await store.putDefinition({ applicationDefinitionId: DEFINITION, name: 'New', communityId: 10 }, 3n);
      await store.putDefinition({ applicationDefinitionId: DEFINITION, name: 'Old', communityId: 20 }, 2n);

      expect(await store.definition(DEFINITION)).toEqual({
        applicationDefinitionId: DEFINITION,
        name: 'New',
        communityId: 10,
      });
    });

    it('given everything applied, when any range is replayed twice, then the digest is unchanged', async () => {
      await store.putDefinition({ applicationDefinitionId: DEFINITION, name: 'Call', communityId: 10 }, 100n);
      await putAll();
      const once = await store.projectionStore.digest();

      await putAll();
      await putAll();
      await store.putDefinition({ applicationDefinitionId: DEFINITION, name: 'Call', communityId: 10 }, 100n);
      for (const [i, a] of fixtures.slice(2, 4).entries()) await store.putApplication(a, BigInt(i + 3));

      expect(await store.projectionStore.digest()).toEqual(once);
    });

    it('given a committed batch, when the checkpoint is read, then it is the batch position; after reset, nothing remains', async () => {
      expect(await store.projectionStore.checkpoint('applications')).toBeUndefined();
      await store.projectionStore.commit('applications', 6n, async () => putAll());
      expect(await store.projectionStore.checkpoint('applications')).toBe(6n);

      await store.projectionStore.reset('applications');

      expect(await store.projectionStore.checkpoint('applications')).toBeUndefined();
      expect(await store.page(DEFINITION, 0, { skip: 0, take: 10 })).toEqual({ count: 0, list: [] });
      expect(Object.values((await store.projectionStore.digest()).counts).every((n) => n === 0)).toBe(true);
    });
  });
}

describeOnEveryReadDb(describeApplicationStoreContract, {
  sqlite: [
    'SqliteDocumentStore',
    (read) =>
      applicationReadModel(
        new SqliteDocumentStore(read, APPLICATIONS_READ_MODEL.collections, scopeOf(APPLICATIONS_READ_MODEL)),
      ),
  ],
  mongo: [
    'MongoDocumentStore',
    async (read) => applicationReadModel(await MongoDocumentStore.open(read, APPLICATIONS_READ_MODEL.collections)),
  ],
});
