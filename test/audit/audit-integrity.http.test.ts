import path from 'node:path';
import Database from 'better-sqlite3';
import { demo, demoDirectory } from '../support/demo-directory';
import { backendEnv, embeddedOnly } from '../support/backend';
import { eventHash } from '../../src/audit/log-hash';
import { onServer } from '../support/postgres';
import { newResource, resourceApi, scope } from '../support/resource-api';
import type { TestServer } from '../support/test-server';
import { startTestServer } from '../support/test-server';

/** GET /api/audit/integrity: the hash chain's head and, with `verify=true`, its check, for auditors only. */
const { users } = demo;

describe('GET /api/audit/integrity', () => {
  let server: TestServer;
  const as = async (userId: number) => ({ token: await server.sessionToken(userId) });

  beforeAll(async () => {
    server = await startTestServer();
    expect((await server.directory(demoDirectory.events)).status).toBe(200);
  });
  afterAll(() => server.close());

  it('given an auditor, when they ask for the head, then it is the newest event, their own recorded read', async () => {
    // when
    const res = await server.get('/api/audit/integrity', await as(users.auditor));
    // then
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      kept: true,
      position: expect.stringMatching(/^[0-9]+$/),
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const reads = await server.get(
      `/api/audit/events?stream=audit-${users.auditor}&type=AuditRead&limit=1000`,
      await as(users.auditor),
    );
    const correlationId = res.headers.get('x-correlation-id');
    const recorded = reads.body.items.find(
      (e: { metadata: { correlationId: string } }) => e.metadata.correlationId === correlationId,
    );
    expect(recorded.data.route).toBe('GET /api/audit/integrity');
    expect(recorded.position).toBe(res.body.position);
  });

  it('given a write after a head was taken, when the head is asked again, then it has moved on with another hash', async () => {
    const before = (await server.get('/api/audit/integrity', await as(users.auditor))).body;
    const saved = await server.post(
      '/api/Resource/SaveProjectResource',
      {
        id: 0,
        name: 'Chained',
        resourceUrl: 'https://example.org/c.pdf',
        privacyLevel: 2,
        communityProjectId: demo.communityProjects.solarIn1,
      },
      await as(users.team),
    );
    expect(saved.status).toBe(200);
    const after = (await server.get('/api/audit/integrity', await as(users.auditor))).body;
    expect(BigInt(after.position)).toBeGreaterThan(BigInt(before.position));
    expect(after.hash).not.toBe(before.hash);
  });

  it.each([
    ['team member', users.team],
    ['community admin', users.admin1],
    ['outsider', users.outsider],
  ])('given a %s without the auditor role, then 403, with or without verify', async (_who, userId) => {
    for (const query of ['', '?verify=true']) {
      const res = await server.get(`/api/audit/integrity${query}`, await as(userId));
      expect(res.status).toBe(403);
      expect(res.body.type).toBe('/problems/forbidden');
    }
  });

  it('given no credential, then 401', async () => {
    const res = await server.get('/api/audit/integrity');
    expect(res.status).toBe(401);
    expect(res.body.type).toBe('/problems/unauthenticated');
  });

  it.each([
    ['from', 'from=1'],
    ['deep', 'verify=true&deep=1'],
    ['verify', 'verify=yes'],
  ])('given a bad or unknown query parameter %s, then 400 naming it', async (field, query) => {
    const res = await server.get(`/api/audit/integrity?${query}`, await as(users.auditor));
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('/problems/validation');
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual([field]);
  });

  it('given an untouched log, when an auditor asks to verify it, then it is intact, every event counted, their read recorded', async () => {
    const auditor = await as(users.auditor);
    const log = await server.get('/api/audit/events?limit=1000', auditor);
    const positions: string[] = log.body.items.map((e: { position: string }) => e.position);
    expect(log.body.nextCursor).toBeNull();

    const res = await server.get('/api/audit/integrity?verify=true', auditor);

    expect(res.status).toBe(200);
    // The events listed (the read that listed them among them), and this read, recorded before the run.
    expect(res.body.verification).toEqual({
      events: positions.length + 1,
      unchained: 0,
      chainedFrom: positions[0],
      intact: true,
      firstMismatch: null,
      checkedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
    expect(res.body).toMatchObject({ kept: true, position: expect.stringMatching(/^[0-9]+$/) });
    const reads = await server.get(
      `/api/audit/events?stream=audit-${users.auditor}&type=AuditRead&limit=1000`,
      auditor,
    );
    const recorded = reads.body.items.find(
      (e: { metadata: { correlationId: string } }) => e.metadata.correlationId === res.headers.get('x-correlation-id'),
    );
    expect(recorded.data).toEqual({ route: 'GET /api/audit/integrity', params: { verify: true } });
  });

  it('given a log that keeps no chain, when an auditor asks to verify it, then kept false and verification null', async () => {
    // As on EventStoreDB, whose adapter has no chain: the service is given no LogIntegrity.
    const services = server.services as { logIntegrity?: unknown };
    const integrity = services.logIntegrity;
    services.logIntegrity = undefined;
    try {
      const res = await server.get('/api/audit/integrity?verify=true', await as(users.auditor));

      expect(res.status).toBe(200);
      expect(res.body).toEqual({ kept: false, position: null, hash: null, verification: null });
    } finally {
      services.logIntegrity = integrity;
    }
  });

  it('given verify=false or none, then the head alone, without a verification', async () => {
    const auditor = await as(users.auditor);
    for (const query of ['', '?verify=false']) {
      const res = await server.get(`/api/audit/integrity${query}`, auditor);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['hash', 'kept', 'position']);
    }
  });

  it('given verifications asked while one runs, then they share its result: the log is read once', async () => {
    const integrity = server.services.logIntegrity!;
    const real = integrity.verifyIntegrity.bind(integrity);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const runs = jest.spyOn(integrity, 'verifyIntegrity').mockImplementation(async () => {
      await held;
      return real();
    });
    try {
      const auditor = await as(users.auditor);
      const before = (await server.get(`/api/audit/events?stream=audit-${users.auditor}&limit=1000`, auditor)).body;
      const asked = [1, 2, 3].map(() => server.get('/api/audit/integrity?verify=true', auditor));
      // Each request records its read before it asks for the run: once the three reads are in the
      // log (and one more round trip has let their handlers go on), all three are waiting on it.
      for (let seen = 0; seen < 3;) {
        const page = await server.get(
          `/api/audit/events?stream=audit-${users.auditor}&type=AuditRead&limit=1000&cursor=${before.next}`,
          auditor,
        );
        seen = page.body.items.filter((e: { data: { params: object } }) => 'verify' in e.data.params).length;
      }
      await server.get('/health/live');
      release();
      const answers = await Promise.all(asked);

      expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
      expect(runs).toHaveBeenCalledTimes(1);
      const [first, ...others] = answers.map((a) => a.body.verification);
      expect(first.intact).toBe(true);
      expect(others).toEqual([first, first]);

      // A run that ended is not reused: the next ask reads the log again.
      const later = await server.get('/api/audit/integrity?verify=true', auditor);
      expect(runs).toHaveBeenCalledTimes(2);
      expect(later.body.verification.events).toBeGreaterThan(first.events);
    } finally {
      runs.mockRestore();
    }
  });

  it('given the OpenAPI document, then the route is there for auditors, with its answer', async () => {
    const doc = (await server.get('/openapi.json')).body;
    const operation = doc.paths['/api/audit/integrity'].get;
    expect(operation.operationId).toBe('getLogIntegrity');
    expect(operation.tags).toEqual(['audit']);
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403']));
  });
});

/** Changes one stored event behind the service, as someone with access to its database could. */
async function tamperWith(server: TestServer, position: string, text: string, replacement: string): Promise<void> {
  const edit = 'update events set data = replace(data, $text, $replacement) where position = $position';
  const { POSTGRES_URL, POSTGRES_SCHEMA } = backendEnv({ DATA_DIR: server.dataDir });
  if (POSTGRES_URL) {
    await onServer(POSTGRES_URL, (client) =>
      client.query(`update "${POSTGRES_SCHEMA}".events set data = replace(data, $1, $2) where position = $3`, [
        text,
        replacement,
        position,
      ]),
    );
    return;
  }
  const db = new Database(path.join(server.dataDir, 'events.sqlite'));
  try {
    // The service commits from its own connection: wait for its lock rather than fail.
    db.pragma('busy_timeout = 10000');
    expect(db.prepare(edit).run({ text, replacement, position: BigInt(position) }).changes).toBe(1);
  } finally {
    db.close();
  }
}

describe('GET /api/audit/integrity?verify=true on a log changed behind the service', () => {
  let server: TestServer;
  const as = async (userId: number) => ({ token: await server.sessionToken(userId) });

  beforeAll(async () => {
    server = await startTestServer();
    expect((await server.directory(demoDirectory.events)).status).toBe(200);
  });
  afterAll(() => server.close());

  it("given one event's data edited in the database, when verified, then not intact, and the first mismatch is that event", async () => {
    const saved = await server.post(
      '/api/Resource/SaveProjectResource',
      {
        id: 0,
        name: 'Tamper-evident budget',
        resourceUrl: 'https://example.org/t.pdf',
        privacyLevel: 2,
        communityProjectId: demo.communityProjects.solarIn1,
      },
      await as(users.team),
    );
    expect(saved.status).toBe(200);
    const auditor = await as(users.auditor);
    const stream = `resource-${saved.body.id}`;
    const created = (await server.get(`/api/audit/events?stream=${stream}&type=ResourceCreated`, auditor)).body
      .items[0];
    const intact = await server.get('/api/audit/integrity?verify=true', auditor);
    expect(intact.body.verification).toMatchObject({ intact: true, firstMismatch: null });

    await tamperWith(server, created.position, 'Tamper-evident', 'Xamper-evident');
    const res = await server.get('/api/audit/integrity?verify=true', auditor);

    expect(res.status).toBe(200);
    expect(res.body.verification).toMatchObject({
      intact: false,
      firstMismatch: {
        position: created.position,
        streamId: stream,
        revision: '0',
        type: 'ResourceCreated',
        problem: 'hash',
      },
    });
  });
});

/** Edits one event's data and computes every hash from there again, as someone covering an edit would. */
function rewriteChainFrom(server: TestServer, position: string, text: string, replacement: string): void {
  const db = new Database(path.join(server.dataDir, 'events.sqlite'));
  try {
    db.pragma('busy_timeout = 10000');
    db.defaultSafeIntegers(true);
    db.transaction(() => {
      db.prepare('update events set data = replace(data, ?, ?) where position = ?').run(
        text,
        replacement,
        BigInt(position),
      );
      const before = db
        .prepare('select hash from events where position < ? order by position desc limit 1')
        .get(BigInt(position)) as { hash: Buffer } | undefined;
      let previous = before ? before.hash.toString('hex') : '';
      const rows = db
        .prepare(
          'select position, stream_id, revision, type, data, metadata from events where position >= ? order by position',
        )
        .all(BigInt(position)) as {
        position: bigint;
        stream_id: string;
        revision: bigint;
        type: string;
        data: string;
        metadata: string;
      }[];
      const update = db.prepare('update events set hash = ? where position = ?');
      for (const row of rows) {
        previous = eventHash(previous, row.stream_id, row.revision, row.type, row.data, row.metadata);
        update.run(Buffer.from(previous, 'hex'), row.position);
      }
    }).immediate();
  } finally {
    db.close();
  }
}

describe('GET /api/audit/integrity?anchor=: does the log still pass through a head recorded earlier', () => {
  let server: TestServer;
  const as = async (userId: number) => ({ token: await server.sessionToken(userId) });
  const save = async (name: string) =>
    (
      await resourceApi(server).create(
        users.team,
        newResource(scope.communityProject(demo.communityProjects.solarIn1), { name, privacyLevel: 2 }),
      )
    ).id;

  beforeAll(async () => {
    server = await startTestServer();
    expect((await server.directory(demoDirectory.events)).status).toBe(200);
  });
  afterAll(() => server.close());

  it('given a head recorded, and writes since, then the log passes through it; through the same position with another hash it does not', async () => {
    await save('Anchored budget');
    const recorded = (await server.get('/api/audit/integrity', await as(users.auditor))).body;
    await save('Later plan');

    const anchored = await server.get(
      `/api/audit/integrity?anchor=${recorded.position}:${recorded.hash}`,
      await as(users.auditor),
    );
    const otherHash = `${recorded.hash.slice(0, -1)}${recorded.hash.endsWith('0') ? '1' : '0'}`;
    const other = await server.get(
      `/api/audit/integrity?anchor=${recorded.position}:${otherHash}`,
      await as(users.auditor),
    );

    expect(anchored.status).toBe(200);
    expect(anchored.body.anchor).toEqual({ position: recorded.position, hash: recorded.hash, holds: true });
    expect(anchored.body.verification).toMatchObject({ intact: true });
    expect(BigInt(anchored.body.position)).toBeGreaterThan(BigInt(recorded.position));
    expect(other.body.anchor).toEqual({ position: recorded.position, hash: otherHash, holds: false });
  });

  it.each(['42', '42:abc', 'x:9b2e4c6f1a3d5b7e9c0f2a4d6b8e0c1f3a5d7b9e1c3f5a7d9b0e2c4f6a8d0b1e'])(
    'given the anchor %s, then 400 naming anchor',
    async (anchor) => {
      const res = await server.get(`/api/audit/integrity?anchor=${anchor}`, await as(users.auditor));

      expect(res.status).toBe(400);
      expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['anchor']);
    },
  );

  embeddedOnly("it rewrites the embedded store's file")(
    'given an event before the anchor edited and every hash after it computed again, then the chain holds but the log no longer passes through the anchor',
    async () => {
      const id = await save('Rewritten budget');
      const auditor = await as(users.auditor);
      const created = (await server.get(`/api/audit/events?stream=resource-${id}&type=ResourceCreated`, auditor)).body
        .items[0];
      const recorded = (await server.get('/api/audit/integrity', auditor)).body;

      rewriteChainFrom(server, created.position, 'Rewritten', 'Xewritten');
      const res = await server.get(`/api/audit/integrity?anchor=${recorded.position}:${recorded.hash}`, auditor);

      expect(res.body.verification).toMatchObject({ intact: true, firstMismatch: null });
      expect(res.body.anchor).toEqual({ position: recorded.position, hash: recorded.hash, holds: false });
    },
  );
});
