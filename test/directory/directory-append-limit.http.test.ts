/**
 * A directory batch is one append, and an append may store at most MAX_APPEND_BYTES on
 * every event store (EventStoreDB refuses more than 1 MiB; the embedded store follows the same
 * limit). A batch under the body limit but over the append limit is a 413 naming `events`.
 */
import { startTestServer, type TestServer } from '../support/test-server';

/** A circle with the longest name and long name the feed accepts: about 850 bytes stored each. */
const bigCircle = (circleId: number) => ({
  type: 'CircleUpserted',
  data: {
    circleId,
    name: 'n'.repeat(300),
    longName: 'l'.repeat(500),
    isActive: true,
    projectId: 10,
    communityId: null,
  },
});

describe('directory feed: the append limit', () => {
  let server: TestServer;
  const headers = () => ({ 'x-directory-token': server.services.secrets.directoryToken });

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('given a batch under the body limit that would store more than one append may, when fed, then it is a 413 naming events and nothing is stored', async () => {
    // given
    const batch = { events: Array.from({ length: 1000 }, (_, i) => bigCircle(i + 1)) };
    expect(JSON.stringify(batch).length).toBeLessThan(1024 * 1024);
    const head = await server.services.eventStore.headPosition();
    // when
    const res = await server.post('/internal/directory/events', batch, { headers: headers() });
    // then
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ type: '/problems/payload-too-large', status: 413 });
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['events']);
    expect(await server.services.eventStore.headPosition()).toBe(head);
  });

  it('given the same events split in two batches, when fed, then both are stored', async () => {
    // given
    const events = Array.from({ length: 1000 }, (_, i) => bigCircle(i + 1));
    // when
    const first = await server.post(
      '/internal/directory/events',
      { events: events.slice(0, 500) },
      { headers: headers() },
    );
    const second = await server.post(
      '/internal/directory/events',
      { events: events.slice(500) },
      { headers: headers() },
    );
    // then
    expect([first.status, second.status]).toEqual([200, 200]);
    expect([first.body.accepted, second.body.accepted]).toEqual([500, 500]);
  });
});
