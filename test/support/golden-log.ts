import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { SqliteEventStore } from '../../src/infra/sqlite/sqlite-event-store';
import type { EventMetadata } from '../../src/domain/event';
import type { TestServer } from './test-server';

/**
 * The golden log (test/fixtures/golden-log): events as an earlier version of the service stored
 * them, one JSON object a line, in log order. Written once by write-golden-log.ts, never edited.
 */
export const GOLDEN_DIR = path.join(__dirname, '..', 'fixtures', 'golden-log');
export const GOLDEN_EVENTS = path.join(GOLDEN_DIR, 'events.jsonl');
export const GOLDEN_EXPECTED = path.join(GOLDEN_DIR, 'expected.json');
/** The second golden log: written once events carried versions (ResourceShared at version 2). */
export const GOLDEN_V2_DIR = path.join(__dirname, '..', 'fixtures', 'golden-log-v2');

export type GoldenEvent = {
  readonly position: number;
  readonly streamId: string;
  readonly revision: number;
  readonly type: string;
  readonly data: unknown;
  readonly metadata: EventMetadata & Record<string, unknown>;
};

/** What the replay of the golden log must give: the read-model digest and resources' audit histories. */
export type GoldenExpected = {
  readonly digest: string;
  readonly counts: Record<string, number>;
  readonly histories: Record<string, unknown>;
};

/**
 * What the replayed log answers its readers, keyed by the question (`list u3 p10 c1`): every
 * user's resource list of every project from every view, every user's privacy read of every
 * resource, and every user's page of every application definition. What the log means, as its
 * readers see it: stored bytes, table names and digests may change, these may not.
 */
export type GoldenAnswers = Record<string, { readonly status: number; readonly body: unknown }>;

export function readGoldenEvents(file = GOLDEN_EVENTS): GoldenEvent[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as GoldenEvent);
}

/** The events table of a SQLite event log, as golden-log lines. */
export function exportEvents(eventsFile: string): string {
  const db = new Database(eventsFile, { readonly: true });
  try {
    const rows = db
      .prepare('select position, stream_id, revision, type, data, metadata from events order by position')
      .all() as {
      position: number;
      stream_id: string;
      revision: number;
      type: string;
      data: string;
      metadata: string;
    }[];
    return rows
      .map((r) =>
        JSON.stringify({
          position: r.position,
          streamId: r.stream_id,
          revision: r.revision,
          type: r.type,
          data: JSON.parse(r.data) as unknown,
          metadata: JSON.parse(r.metadata) as unknown,
        }),
      )
      .map((line) => `${line}\n`)
      .join('');
  } finally {
    db.close();
  }
}

/**
 * Writes the golden events, as they are (no version stamped, nothing upcast), into
 * `dataDir/events.sqlite` through the SQLite adapter itself, at the same positions.
 */
export async function loadGoldenLog(
  dataDir: string,
  events: readonly GoldenEvent[] = readGoldenEvents(),
): Promise<void> {
  const store = SqliteEventStore.open(path.join(dataDir, 'events.sqlite'));
  try {
    for (const event of events) {
      const { position } = await store.appendToStream(
        event.streamId,
        [{ type: event.type, data: event.data, metadata: event.metadata }],
        event.revision === 0 ? 'no_stream' : BigInt(event.revision - 1),
      );
      if (position !== BigInt(event.position)) throw new Error(`golden event ${event.position} landed at ${position}`);
    }
  } finally {
    await store.close();
  }
}

/**
 * The golden log replayed by the service of today: loaded into a fresh DATA_DIR, served, then
 * asked for its read-model digest (operators) and each resource's audit history (an auditor).
 */
export async function replayGoldenLog(
  start: (dataDir: string) => Promise<ReplayServer>,
  auditorId: number,
  events: readonly GoldenEvent[] = readGoldenEvents(),
): Promise<GoldenExpected & { readonly answers: GoldenAnswers }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'prs-golden-'));
  await loadGoldenLog(dataDir, events);
  const server = await start(dataDir);
  try {
    const digest = await server.get<GoldenExpected>('/internal/read-models/digest', {
      headers: { 'x-directory-token': server.services.secrets.directoryToken },
    });
    if (digest.status !== 200) throw new Error(`digest: ${digest.status} ${digest.text}`);
    const resourceIds = [...new Set(events.flatMap((e) => /^resource-([0-9]+)$/.exec(e.streamId)?.[1] ?? []))];
    const token = await server.sessionToken(auditorId);
    const histories: Record<string, unknown> = {};
    for (const id of resourceIds.sort((a, b) => Number(a) - Number(b))) {
      const history = await server.get(`/api/audit/resources/${id}/history`, { token });
      if (history.status !== 200) throw new Error(`history of ${id}: ${history.status} ${history.text}`);
      histories[id] = history.body;
    }
    return {
      digest: digest.body.digest,
      counts: digest.body.counts,
      histories,
      answers: await answersOf(server, events),
    };
  } finally {
    await server.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

type ReplayServer = Pick<TestServer, 'get' | 'post' | 'sessionToken' | 'close' | 'services'>;

/** The ids of `type`'s events' `field`, sorted, each once. */
function idsIn(events: readonly GoldenEvent[], type: string, field: string): number[] {
  const ids = events.flatMap((e) => (e.type === type ? [Number((e.data as Record<string, unknown>)[field])] : []));
  return [...new Set(ids)].sort((a, b) => a - b);
}

/** Every reader's answers over the replayed log (GoldenAnswers). */
async function answersOf(server: ReplayServer, events: readonly GoldenEvent[]): Promise<GoldenAnswers> {
  const users = idsIn(events, 'UserUpserted', 'userId');
  const projects = idsIn(events, 'ProjectUpserted', 'projectId');
  const communities = idsIn(events, 'CommunityUpserted', 'communityId');
  const resources = [...new Set(events.flatMap((e) => /^resource-([0-9]+)$/.exec(e.streamId)?.[1] ?? []))].map(Number);
  const definitions = idsIn(events, 'ApplicationDefinitionUpserted', 'applicationDefinitionId');
  const answers: GoldenAnswers = {};
  const keep = (key: string, res: { status: number; body: unknown }) => {
    answers[key] = { status: res.status, body: res.body };
  };
  for (const user of users) {
    const token = await server.sessionToken(user);
    for (const projectId of projects) {
      for (const communityId of [null, ...communities]) {
        const body = { projectId, communityId, orderBy: 1, take: 100 };
        keep(
          `list u${user} p${projectId} c${communityId}`,
          await server.post('/api/Project/GetResourceList', body, { token }),
        );
      }
    }
    for (const id of resources) {
      keep(`privacy u${user} r${id}`, await server.get(`/api/Privacy/GetResourcePrivacy?resourceId=${id}`, { token }));
    }
    for (const id of definitions) {
      const path = `/api/ApplicationDefinition/${id}/Applications`;
      keep(`applications u${user} d${id}`, await server.post(path, { take: 100 }, { token }));
    }
  }
  return answers;
}
