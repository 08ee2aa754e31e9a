/**
 * The applications projection, given / when / then over a fresh SQLite read model: the
 * definitions and applications the store answers after the directory feed, and that applying
 * it again changes nothing.
 */
import { DIRECTORY_STREAM } from '../../src/directory/directory-events';
import { demo, demoDirectory } from '../support/demo-directory';
import { ProjectionSpecification, onStream } from '../support/projection-specification';

const given = ProjectionSpecification.for('applications');
const directory = (...events: { type: string; data: unknown }[]) => onStream(DIRECTORY_STREAM, ...events);
const DEFINITION = demo.applicationDefinition;
const everything = { skip: 0, take: 100 };

describe('applications projection', () => {
  it('given nothing, when the demo directory is fed, then the store answers its definition, applications and filter values', () =>
    given()
      .when(directory(...demoDirectory.events))
      .then(async (store) => {
        expect(await store.definition(DEFINITION)).toEqual({
          applicationDefinitionId: DEFINITION,
          name: 'Spring Accelerator 2026',
          communityId: demo.communities.public1,
        });
        const page = await store.page(DEFINITION, 0, everything);
        expect(page.count).toBe(3);
        expect(page.list.map((a) => a.applicationId)).toEqual([700, 701, 702]);
        expect(page.list[0]?.submittedAt).toBe('2026-03-01T10:00:00.000Z');
        expect((await store.filterValues(DEFINITION)).country).toEqual(['Kenya', 'Peru']);
      }));

  it('given the demo directory, when an application is upserted again with other fields, then the store answers the new ones', () =>
    given(directory(...demoDirectory.events))
      .when(
        directory({
          type: 'ApplicationUpserted',
          data: {
            applicationId: 700,
            applicationDefinitionId: DEFINITION,
            name: 'Solar Kiosk II',
            submittedAt: '2026-03-05T10:00:00+02:00',
            tags: ['energy'],
            country: 'Chile',
            stage: null,
            industry: null,
            sdgs: [],
            userInterests: [],
          },
        }),
      )
      .then(async (store) => {
        const [first] = (await store.page(DEFINITION, 0, everything)).list;
        expect(first).toMatchObject({
          applicationId: 700,
          name: 'Solar Kiosk II',
          submittedAt: '2026-03-05T08:00:00.000Z',
          country: 'Chile',
          stage: null,
        });
        expect((await store.filterValues(DEFINITION)).country).toEqual(['Chile', 'Kenya', 'Peru']);
      }));

  it('given nothing, when only directory events of other kinds arrive, then there is no definition', () =>
    given()
      .when(directory(...demoDirectory.events.filter((e) => !e.type.startsWith('Application'))))
      .then(async (store) => {
        expect(await store.definition(DEFINITION)).toBeNull();
        expect(await store.page(DEFINITION, 0, everything)).toEqual({ count: 0, list: [] });
      }));
});
