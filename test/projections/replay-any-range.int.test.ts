/**
 * Every projection's writes are guarded by the event's position: replaying any range of the log
 * over a read model that already holds it changes nothing (the MongoDB adapters
 * rely on it after a crash, the SQLite ones on top of their transactional checkpoints).
 */
import fc from 'fast-check';
import type { RecordedEvent } from '../../src/ports/event-store';
import { SqliteReadDb } from '../../src/infra/sqlite/sqlite-read-db';
import { ReadModels } from '../../src/projections/read-models';
import { openReadModels } from '../../src/app/read-model-list';
import { createLogger } from '../../src/observability/logger';
import { demo, demoDirectory } from '../support/demo-directory';
import { startTestServer } from '../support/test-server';

async function historyOfEveryKind(): Promise<RecordedEvent[]> {
  const server = await startTestServer();
  try {
    await server.directory(demoDirectory.events);
    const team = await server.token(demo.users.team);
    const admin = await server.token(demo.users.admin1);
    const save = async (token: string, body: object) => {
      const res = await server.post(
        '/api/Resource/SaveProjectResource',
        { id: 0, name: 'R', resourceUrl: 'https://example.org/a.pdf', ...body },
        { token },
      );
      expect(res.status).toBe(200);
      return res.body.id as number;
    };
    const own = await save(admin, { privacyLevel: 2, communityProjectId: demo.communityProjects.solarIn1 });
    const project = await save(team, {
      privacyLevel: 1,
      projectId: demo.projects.solar,
      communityProjectId: 0,
      communityId: 0,
    });
    const gone = await save(team, { privacyLevel: 3, communityProjectId: demo.communityProjects.solarIn1 });
    const privacy = (token: string, body: object) => server.post('/api/Privacy/SaveResourcePrivacy', body, { token });
    expect(
      (
        await privacy(admin, {
          resourceId: own,
          owner: {
            privacyLevel: 4,
            circlesToAdd: [
              { circleId: demo.circles.reviewers1, projectId: null, communityId: demo.communities.public1 },
            ],
          },
          sharesToUpsert: [{ communityId: demo.communities.public3, privacyLevel: 1 }],
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await privacy(team, {
          resourceId: project,
          sharesToUpsert: [{ communityId: demo.communities.private2, privacyLevel: 3 }],
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await server.post(
          '/api/Resource/SaveProjectResource',
          { id: project, name: 'Renamed', resourceUrl: 'https://example.org/b.png', privacyLevel: 5 },
          { token: team },
        )
      ).status,
    ).toBe(200);
    expect((await server.get(`/api/Resource/RemoveProjectResource?id=${gone}`, { token: team })).status).toBe(200);
    await server.directory([
      { type: 'CommunityProjectRemoved', data: { communityProjectId: demo.communityProjects.solarIn2 } },
      { type: 'CommunityMemberRemoved', data: { communityId: demo.communities.public1, userId: demo.users.member1 } },
    ]);
    return server.services.eventStore.readAll(undefined, 10_000);
  } finally {
    await server.close();
  }
}

async function projected(history: readonly RecordedEvent[], replays: readonly [number, number][]) {
  const { projections } = await openReadModels({ kind: 'sqlite', sqlite: SqliteReadDb.open(':memory:') });
  const apply = async (events: readonly RecordedEvent[]) => {
    for (const event of events) for (const projection of projections) await projection.apply(event);
  };
  await apply(history);
  for (const [from, to] of replays) await apply(history.slice(from, to));
  const models = new ReadModels({} as never, projections, createLogger('silent'));
  return models.digest();
}

describe('replaying any range of the log', () => {
  it('given a history of saves, shares, updates, deletes and directory changes, replaying any ranges over it changes no read model', async () => {
    // given
    const history = await historyOfEveryKind();
    const once = await projected(history, []);
    expect(once.counts.res_views).toBeGreaterThan(0);
    // when / then
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc
            .tuple(fc.nat(history.length), fc.nat(history.length))
            .map(([a, b]) => [Math.min(a, b), Math.max(a, b)] as [number, number]),
          { minLength: 1, maxLength: 5 },
        ),
        async (replays) => {
          expect(await projected(history, replays)).toEqual(once);
        },
      ),
      { numRuns: 25 },
    );
  });
});
