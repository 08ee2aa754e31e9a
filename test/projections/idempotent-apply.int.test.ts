/**
 * Every projector's apply is idempotent: a history projected with each event applied twice gives
 * the same read models as the history applied once (the runner re-delivers at most the events
 * after its checkpoint after a crash, so this is what keeps a restart from corrupting them).
 */
import { MemoryReadStore } from '../../src/infra/read-store/memory-read-store';
import { allProjections } from '../../src/projections/all-projections';
import { readModelDigest } from '../../src/projections/read-model-digest';
import { demo, demoDirectory } from '../support/demo-directory';
import { startTestServer } from '../support/test-server';

describe('idempotent apply', () => {
  it('given a history of saves, shares, updates and deletes, applying each event twice equals applying it once', async () => {
    const server = await startTestServer();
    try {
      await server.directory(demoDirectory.events);
      const team = await server.token(demo.users.team);
      const admin = await server.token(demo.users.admin1);
      const save = async (token: string, body: object) => {
        const res = await server.post('/api/Resource/SaveProjectResource', { id: 0, name: 'R', resourceUrl: 'https://example.org/a.pdf', ...body }, { token });
        expect(res.status).toBe(200);
        return res.body.id as number;
      };
      const own = await save(admin, { privacyLevel: 2, communityProjectId: demo.communityProjects.solarIn1 });
      const project = await save(team, { privacyLevel: 1, projectId: demo.projects.solar, communityProjectId: 0, communityId: 0 });
      const gone = await save(team, { privacyLevel: 3, communityProjectId: demo.communityProjects.solarIn1 });
      const privacy = (token: string, body: object) => server.post('/api/Privacy/SaveResourcePrivacy', body, { token });
      expect((await privacy(admin, { resourceId: own, owner: { privacyLevel: 4, circlesToAdd: [{ circleId: demo.circles.reviewers1, projectId: null, communityId: demo.communities.public1 }] }, sharesToUpsert: [{ communityId: demo.communities.public3, privacyLevel: 1 }] })).status).toBe(200);
      expect((await privacy(team, { resourceId: project, sharesToUpsert: [{ communityId: demo.communities.private2, privacyLevel: 3 }] })).status).toBe(200);
      expect((await server.post('/api/Resource/SaveProjectResource', { id: project, name: 'Renamed', resourceUrl: 'https://example.org/b.png', privacyLevel: 5 }, { token: team })).status).toBe(200);
      expect((await server.get(`/api/Resource/RemoveProjectResource?id=${gone}`, { token: team })).status).toBe(200);
      await server.directory([{ type: 'CommunityProjectRemoved', data: { communityProjectId: demo.communityProjects.solarIn2 } }]);

      const history = await server.services.eventStore.readAll(undefined, 10_000);
      const once = new MemoryReadStore();
      const twice = new MemoryReadStore();
      for (const event of history) {
        for (const projection of allProjections) {
          await projection.apply(event, once);
          await projection.apply(event, twice);
          await projection.apply(event, twice);
        }
      }
      const [a, b] = await Promise.all([readModelDigest(once, allProjections), readModelDigest(twice, allProjections)]);
      expect(b).toEqual(a);
      expect(a.counts.resource_views).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });
});
