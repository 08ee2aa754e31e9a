/**
 * No audit answer carries secret material. Every event type the log stores is produced (the golden
 * logs hold each type), then the whole log is read as the auditor over HTTP, page after page, and
 * through `resources-cli audit events`: no field anywhere in an answer may have a name that looks
 * secret. The hash chain still covers what is stored, and still verifies.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EVENT_CATALOG } from '../../src/app/event-catalog';
import { OPERATOR_DECISIONS_STREAM, parkedEventDecision } from '../../src/app/parked-event-decisions';
import { systemActor } from '../../src/domain/event';
import { personalDataStreamId } from '../../src/audit/personal-data-events';
import { loadConfig } from '../../src/config/config';
import { openEventStore } from '../../src/app/services';
import { auditCommand } from '../../src/cli/audit-command';
import { demo } from '../support/demo-directory';
import { GOLDEN_EVENTS, GOLDEN_V2_DIR, loadGoldenLog, readGoldenEvents } from '../support/golden-log';
import type { TestServer } from '../support/test-server';
import { startTestServer } from '../support/test-server';

const LOOKS_SECRET = /secret|hash|password|token/i;
/**
 * Names that match the pattern and carry no secret: when the previous secret of a rotated key
 * stops working (a time).
 */
const NOT_SECRET = new Set(['previousSecretValidUntil']);

/** Every key, at any depth, whose name looks secret, as `path.to.key`. */
function secretLookingKeys(value: unknown, at = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => secretLookingKeys(item, `${at}[${i}]`));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) => [
    ...(LOOKS_SECRET.test(key) && !NOT_SECRET.has(key) ? [`${at}.${key}`] : []),
    ...secretLookingKeys(inner, `${at}.${key}`),
  ]);
}

type AuditEvent = { position: string; type: string; data: unknown };

describe.each([
  ['the first golden log', GOLDEN_EVENTS],
  ['the versioned golden log', path.join(GOLDEN_V2_DIR, 'events.jsonl')],
])('audit answers over %s', (_name, file) => {
  jest.setTimeout(60_000);
  const golden = readGoldenEvents(file);
  let dataDir: string;
  let server: TestServer;
  let auditor: { token: string };

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'prs-audit-secrets-'));
    await loadGoldenLog(dataDir, golden);
    server = await startTestServer({ DATA_DIR: dataDir });
    // Operator decisions on parked events came after the golden logs were written: appended as
    // the operator routes append them.
    const decision = {
      readModel: 'directory',
      position: '1',
      streamId: 'directory',
      eventType: 'UserUpserted',
      operator: { credential: 'directoryToken' as const, name: 'Grace Hopper' },
    };
    const metadata = { actor: systemActor, correlationId: 'audit-secrets', at: new Date().toISOString() };
    await server.services.eventStore.appendToStream(
      OPERATOR_DECISIONS_STREAM,
      [
        parkedEventDecision('ParkedEventRetried', decision, metadata),
        parkedEventDecision('ParkedEventSkipped', decision, metadata),
      ],
      'any',
    );
    // Erasures too, as resources-cli erase-person records them.
    await server.services.eventStore.appendToStream(
      personalDataStreamId(demo.users.team),
      [{ type: 'PersonalDataErased', data: { userId: demo.users.team, keyDestroyed: true }, metadata }],
      'any',
    );
    auditor = { token: await server.sessionToken(demo.users.auditor) };
  });
  afterAll(async () => {
    await server.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** The whole log as GET /api/audit/events answers it, page after page. */
  const readAll = async (): Promise<AuditEvent[]> => {
    const items: AuditEvent[] = [];
    let after: string | null = null;
    for (let page = 0; page < 1000; page += 1) {
      const query: string = after === null ? 'limit=7' : `limit=7&after=${encodeURIComponent(after)}`;
      const res = await server.get<{ items: AuditEvent[]; next: string | null; hasMore: boolean }>(
        `/api/audit/events?${query}`,
        auditor,
      );
      expect(res.status).toBe(200);
      items.push(...res.body.items);
      if (!res.body.hasMore) return items;
      after = res.body.next;
    }
    throw new Error('the audit log did not end within 1000 pages');
  };

  it('given every event type in the log, then no event the audit API answers has a field whose name looks secret', async () => {
    const items = await readAll();

    // Every type of the catalog was produced and read back, at least as many events as the golden log holds.
    expect(new Set(items.map((e) => e.type))).toEqual(new Set(EVENT_CATALOG.keys()));
    expect(items.length).toBeGreaterThanOrEqual(golden.length);
    expect(items.flatMap((e) => secretLookingKeys(e, `${e.type}@${e.position}`))).toEqual([]);
  });

  it("given every resource of the log, then no resource's audit history or access review has a field whose name looks secret", async () => {
    const ids = [...new Set(golden.flatMap((e) => /^resource-([0-9]+)$/.exec(e.streamId)?.[1] ?? []))];
    const answers = [];
    for (const id of ids) {
      answers.push(await server.get(`/api/audit/resources/${id}/history`, auditor));
      answers.push(await server.get(`/api/audit/resources/${id}/access`, auditor));
    }

    expect(ids.length).toBeGreaterThan(0);
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    expect(answers.flatMap((a) => secretLookingKeys(a.body))).toEqual([]);
  });

  it('given every event type in the log, then `resources-cli audit events` prints no field whose name looks secret', async () => {
    let printed = '';
    const code = await auditCommand(
      ['events', '--no-progress'],
      () => openEventStore(loadConfig({ NODE_ENV: 'test', DATA_DIR: dataDir })),
      { write: (text) => (printed += text) },
    );

    expect(code).toBe(0);
    const lines = printed
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as AuditEvent);
    expect(new Set(lines.map((e) => e.type))).toEqual(new Set(EVENT_CATALOG.keys()));
    expect(lines.flatMap((e) => secretLookingKeys(e, `${e.type}@${e.position}`))).toEqual([]);
  });

  it('given the secrets left out of the answers, then the hash chain over the stored events still verifies', async () => {
    const head = await server.get<{ position: string | null; hash: string | null }>('/api/audit/integrity', auditor);
    let printed = '';
    const code = await auditCommand(
      ['verify'],
      () => openEventStore(loadConfig({ NODE_ENV: 'test', DATA_DIR: dataDir })),
      { write: (text) => (printed += text) },
    );

    expect(head.status).toBe(200);
    expect(head.body.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(code).toBe(0);
    expect(printed).toContain(head.body.hash);
  });
});
