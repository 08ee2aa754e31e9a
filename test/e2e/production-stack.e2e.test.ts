/**
 * The production stack end to end: EventStoreDB, MongoDB as a single-node replica set and Redis,
 * each in a throwaway container of the image docker-compose.yml runs, with two API processes and a
 * projector on them. A write through one API process is visible through the other when it
 * answers, and readiness is ok. Runs wherever a Docker engine answers; declared as skipped, with
 * the reason, elsewhere.
 */
import { MongoDBContainer, type StartedMongoDBContainer } from '@testcontainers/mongodb';
import { GenericContainer, Wait, type StartedTestContainer } from 'testcontainers';
import { mintSessionToken } from '../../src/infra/auth/session-verifier';
import { demo, demoDirectory } from '../support/demo-directory';
import type { ExternalTarget } from '../support/external';
import { describeExternal } from '../support/external';
import { EVENTSTORE_IMAGE, MONGO_IMAGE, REDIS_IMAGE } from '../support/images';
import { startService, stop, waitFor, type Running } from '../support/service-process';

const target: ExternalTarget =
  process.env.TEST_DOCKER === '1'
    ? { kind: 'docker' }
    : { kind: 'skip', reason: 'the whole production stack needs a Docker engine, and none answers' };

describeExternal(
  'the production stack (EventStoreDB + MongoDB replica set + Redis, two API processes and a projector)',
  target,
  () => {
    jest.setTimeout(300_000);
    const secrets = {
      AUTH_JWT_SECRET: 'production-stack-test-secret-'.padEnd(48, 'x'),
      DIRECTORY_SYNC_TOKEN: 'production-stack-directory-'.padEnd(48, 'y'),
    };
    const containers: (StartedTestContainer | StartedMongoDBContainer)[] = [];
    const running: Running[] = [];
    let env: Record<string, string> = {};

    beforeAll(async () => {
      const [eventstore, mongo, redis] = await Promise.all([
        new GenericContainer(EVENTSTORE_IMAGE)
          .withEnvironment({
            EVENTSTORE_INSECURE: 'true',
            EVENTSTORE_RUN_PROJECTIONS: 'None',
            EVENTSTORE_MEM_DB: 'true',
          })
          .withExposedPorts(2113)
          .withWaitStrategy(Wait.forHttp('/health/live', 2113).forStatusCodeMatching((code) => code < 300))
          .start(),
        // The module starts a single-node replica set, as compose does.
        new MongoDBContainer(MONGO_IMAGE).start(),
        new GenericContainer(REDIS_IMAGE)
          .withExposedPorts(6379)
          .withWaitStrategy(Wait.forLogMessage('Ready to accept connections'))
          .start(),
      ]);
      containers.push(eventstore, mongo, redis);
      env = {
        ...secrets,
        EVENTSTORE_URL: `esdb://${eventstore.getHost()}:${eventstore.getMappedPort(2113)}?tls=false`,
        MONGODB_URL: `${mongo.getConnectionString()}/project_resources?directConnection=true`,
        REDIS_URL: `redis://${redis.getHost()}:${redis.getMappedPort(6379)}`,
      };
    }, 300_000);

    afterAll(async () => {
      await Promise.all(running.map((r) => stop(r, 'SIGKILL')));
      await Promise.all(containers.map((c) => c.stop()));
    });

    const start = async (role: string) => {
      const service = await startService({ ...env, ROLE: role });
      running.push(service);
      return service;
    };
    const internal = { 'content-type': 'application/json', 'x-directory-token': secrets.DIRECTORY_SYNC_TOKEN };
    const leading = async (service: Running) =>
      /read_model_leading\{projection="resources"\} 1/.test(
        await (await fetch(`${service.url}/internal/metrics`, { headers: internal })).text(),
      );

    it('given a projector and two API processes, when a write answers through one, then the other lists it, and the projector leads every read model', async () => {
      // given
      const projector = await start('projector');
      const [api1, api2] = [await start('api'), await start('api')];
      await waitFor(async () => ((await leading(projector)) ? true : undefined), 'the projector to lead');
      const directory = await fetch(`${api1!.url}/internal/directory/events`, {
        method: 'POST',
        headers: internal,
        body: JSON.stringify(demoDirectory),
      });
      expect(directory.status).toBe(200);
      const token = await mintSessionToken(secrets.AUTH_JWT_SECRET, { userId: demo.users.team });
      const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
      // when
      const saved = await fetch(`${api1!.url}/api/Resource/SaveProjectResource`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          id: 0,
          name: 'on the stack',
          resourceUrl: 'https://example.org/a.pdf',
          privacyLevel: 3,
          communityProjectId: demo.communityProjects.solarIn1,
        }),
      });
      expect(saved.status).toBe(200);
      const { id } = (await saved.json()) as { id: number };
      // then
      const list = await fetch(`${api2!.url}/api/Project/GetResourceList`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ projectId: demo.projects.solar, communityId: demo.communities.public1, take: 1000 }),
      });
      const ids = ((await list.json()) as { resources: { list: { id: number }[] } }).resources.list.map((r) => r.id);
      expect(ids).toContain(id);
      const ready = await fetch(`${api2!.url}/health/ready`);
      expect(ready.status).toBe(200);
    });
  },
);
