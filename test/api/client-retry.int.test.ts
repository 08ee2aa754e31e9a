/**
 * The typed client's retries (clients/typescript/client.ts): a POST whose answer is lost is sent
 * again with the same Idempotency-Key, and the service answers it from the stored write.
 */
import { createResourcesClient } from '../../clients/typescript/client';
import { demo } from '../support/demo-directory';
import { serverForSuite } from '../support/suite-server';

describe('the typed client retrying a save whose answer was lost', () => {
  const server = serverForSuite();

  it('given the first answer is lost on the way back, when the client retries, then the save exists once and the replay is the answer', async () => {
    const sent: (string | null)[] = [];
    let lose = true;
    // The request reaches the service; its answer is dropped, as when a connection breaks.
    const flaky: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      sent.push(request.headers.get('idempotency-key'));
      const response = await fetch(request);
      if (lose) {
        lose = false;
        throw new TypeError('fetch failed');
      }
      return response;
    };
    const api = createResourcesClient({
      baseUrl: server.url,
      token: await server.sessionToken(demo.users.team),
      fetch: flaky,
      retryDelayMs: 1,
    });
    const name = `Client retry ${Date.now()}`;

    const saved = await api.POST('/api/Resource/SaveProjectResource', {
      body: {
        id: 0,
        name,
        resourceUrl: 'https://example.org/retry.pdf',
        privacyLevel: 2,
        communityProjectId: demo.communityProjects.solarIn1,
      },
    });

    expect(saved.response.status).toBe(200);
    expect(saved.response.headers.get('idempotent-replayed')).toBe('true');
    expect(sent).toHaveLength(2);
    expect(sent[0]).toBeTruthy();
    expect(sent[1]).toBe(sent[0]);
    const listed = await api.POST('/api/Project/GetResourceList', {
      body: { projectId: demo.projects.solar, communityId: demo.communities.public1, take: 1000 },
    });
    expect(listed.data?.resources.list.filter((r) => r.name === name).map((r) => r.id)).toEqual([saved.data?.id]);
  });
});
