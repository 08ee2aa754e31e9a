/**
 * The typed client's retries, time limits and pager (clients/typescript): a POST whose answer is
 * lost is sent again with the same Idempotency-Key, and the service answers it from the stored
 * write; a read is sent again after a 503, when `Retry-After` says, or after an attempt ran out of
 * time; `eachResource`, `eachApplication` and `eachAuditEvent` walk whole lists by their cursors.
 */
import {
  createResourcesClient,
  eachApplication,
  eachAuditEvent,
  eachResource,
  ResourcesApiError,
  retryAfterMs,
} from '../../clients/typescript/client';
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

describe('the typed client retrying reads', () => {
  const server = serverForSuite();

  /** The service behind a fetch that answers the first `failures` attempts itself, as a proxy in trouble would. */
  const failingFirst = (failures: number, answer: (attempt: number) => Response | 'hang') => {
    const attempts: { at: number; method: string; key: string | null }[] = [];
    const fetching: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      attempts.push({ at: Date.now(), method: request.method, key: request.headers.get('idempotency-key') });
      if (attempts.length > failures) return fetch(request);
      const failed = answer(attempts.length);
      if (failed !== 'hang') return failed;
      return new Promise<Response>((_resolve, reject) =>
        request.signal.addEventListener('abort', () => reject(request.signal.reason as Error)),
      );
    };
    return { attempts, fetching };
  };

  const clientWith = async (fetching: typeof fetch, options: Record<string, number> = {}) =>
    createResourcesClient({
      baseUrl: server.url,
      token: await server.sessionToken(demo.users.team),
      fetch: fetching,
      retryDelayMs: 1,
      ...options,
    });
  const listSolar = (api: Awaited<ReturnType<typeof clientWith>>) =>
    api.POST('/api/Project/GetResourceList', { body: { projectId: demo.projects.solar, take: 1 } });

  it('given a 503 with Retry-After in seconds, when listing, then the client waits that long and the retry answers', async () => {
    const { attempts, fetching } = failingFirst(
      1,
      () => new Response('', { status: 503, headers: { 'retry-after': '1' } }),
    );

    const res = await listSolar(await clientWith(fetching));

    expect(res.response.status).toBe(200);
    expect(attempts).toHaveLength(2);
    expect((attempts[1]?.at ?? 0) - (attempts[0]?.at ?? 0)).toBeGreaterThanOrEqual(950);
  });

  it('given a 429 with Retry-After as an HTTP-date, when listing, then the client waits until then', async () => {
    const { attempts, fetching } = failingFirst(
      1,
      () => new Response('', { status: 429, headers: { 'retry-after': new Date(Date.now() + 2000).toUTCString() } }),
    );

    const res = await listSolar(await clientWith(fetching));

    expect(res.response.status).toBe(200);
    expect((attempts[1]?.at ?? 0) - (attempts[0]?.at ?? 0)).toBeGreaterThanOrEqual(900);
  });

  it('given attempts that hang, when each has a time limit, then the client gives up on each and the third answers', async () => {
    const { attempts, fetching } = failingFirst(2, () => 'hang');
    const started = Date.now();

    const res = await listSolar(await clientWith(fetching, { timeoutMs: 100 }));

    expect(res.response.status).toBe(200);
    expect(attempts).toHaveLength(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
  });

  it('given attempts that hang and no retries left, when listing, then the time limit ends the call with a TimeoutError', async () => {
    const { fetching } = failingFirst(5, () => 'hang');
    const api = await clientWith(fetching, { timeoutMs: 50, retries: 1 });

    await expect(listSolar(api)).rejects.toMatchObject({ name: 'TimeoutError' });
  });

  it('given backoff without Retry-After, when a read keeps failing, then the waits grow and the last answer is returned', async () => {
    const { attempts, fetching } = failingFirst(9, () => new Response('', { status: 503 }));

    const res = await listSolar(await clientWith(fetching, { retries: 3, retryDelayMs: 40 }));

    expect(res.response.status).toBe(503);
    expect(attempts).toHaveLength(4);
    const waits = attempts.slice(1).map((a, i) => a.at - (attempts[i]?.at ?? 0));
    // Between half and all of 40, 80, 160 ms.
    expect(waits.map((w, i) => w >= 20 * 2 ** i - 5)).toEqual([true, true, true]);
    expect(attempts.every((a) => a.key === attempts[0]?.key)).toBe(true);
  });

  it('given Retry-After values, then seconds and HTTP-dates are read, anything else is not', () => {
    const now = Date.parse('2026-11-28T10:00:00Z');
    expect(retryAfterMs('3', now)).toBe(3000);
    expect(retryAfterMs('Sat, 28 Nov 2026 10:00:05 GMT', now)).toBe(5000);
    expect(retryAfterMs('Sat, 28 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(null, now)).toBeUndefined();
  });
});

describe('the typed client walking whole lists', () => {
  const server = serverForSuite();

  it('given a project with more resources than a page, when walked with for await, then every resource once, as one large page lists them', async () => {
    const api = createResourcesClient({ baseUrl: server.url, token: await server.sessionToken(demo.users.team) });
    for (let i = 0; i < 5; i++)
      await api.POST('/api/Resource/SaveProjectResource', {
        body: {
          id: 0,
          name: `Walked ${i}`,
          resourceUrl: 'https://example.org/walk.pdf',
          privacyLevel: 2,
          communityProjectId: demo.communityProjects.solarIn1,
        },
      });
    const filters = { projectId: demo.projects.solar, communityId: demo.communities.public1, orderBy: 1 as const };

    const walked: number[] = [];
    for await (const resource of eachResource(api, { ...filters, take: 2 })) walked.push(resource.id);

    const whole = await api.POST('/api/Project/GetResourceList', { body: { ...filters, take: 1000 } });
    expect(walked).toEqual(whole.data?.resources.list.map((r) => r.id));
    expect(walked.length).toBeGreaterThan(4);
  });

  it('given an application definition, when walked one by one, then every application in order; refused, then the problem is thrown', async () => {
    const admin = createResourcesClient({ baseUrl: server.url, token: await server.sessionToken(demo.users.admin1) });
    const outsider = createResourcesClient({
      baseUrl: server.url,
      token: await server.sessionToken(demo.users.outsider),
    });

    const ids: number[] = [];
    for await (const item of eachApplication(admin, demo.applicationDefinition, { take: 1 })) ids.push(item.id);

    expect(ids).toEqual([700, 701, 702]);
    const refused = eachApplication(outsider, demo.applicationDefinition).next();
    await expect(refused).rejects.toBeInstanceOf(ResourcesApiError);
    await expect(refused).rejects.toMatchObject({ status: 403 });
  });

  it("given a resource's events over several pages, when an auditor walks them with for await, then every event once, as one large page lists them; refused, then the problem is thrown", async () => {
    const team = createResourcesClient({ baseUrl: server.url, token: await server.sessionToken(demo.users.team) });
    const auditor = createResourcesClient({
      baseUrl: server.url,
      token: await server.sessionToken(demo.users.auditor),
    });
    const saved = await team.POST('/api/Resource/SaveProjectResource', {
      body: {
        id: 0,
        name: 'Audited walk',
        resourceUrl: 'https://example.org/audited.pdf',
        privacyLevel: 2,
        communityProjectId: demo.communityProjects.solarIn1,
      },
    });
    const id = saved.data!.id;
    for (const privacyLevel of [3, 2, 3])
      await team.POST('/api/Privacy/SaveResourcePrivacy', { body: { resourceId: id, owner: { privacyLevel } } });
    const stream = `resource-${id}`;

    const walked: string[] = [];
    for await (const event of eachAuditEvent(auditor, { stream, limit: 1 })) walked.push(event.position);

    const whole = await auditor.GET('/api/audit/events', { params: { query: { stream, limit: 1000 } } });
    expect(walked).toEqual(whole.data?.items.map((e) => e.position));
    expect(walked.length).toBeGreaterThan(3);
    const refused = eachAuditEvent(team, { stream }).next();
    await expect(refused).rejects.toBeInstanceOf(ResourcesApiError);
    await expect(refused).rejects.toMatchObject({ status: 403 });
  });
});
