import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EVENT_CATALOG } from '../../src/app/event-catalog';
import { currentVersionOf } from '../../src/domain/event-upcasting';
import { SqliteEventStore } from '../../src/infra/sqlite/sqlite-event-store';
import { versionedEventStore } from '../../src/app/versioned-event-store';
import { demo } from '../support/demo-directory';
import type { GoldenAnswers, GoldenExpected } from '../support/golden-log';
import {
  GOLDEN_DIR,
  GOLDEN_EXPECTED,
  GOLDEN_V2_DIR,
  loadGoldenLog,
  readGoldenEvents,
  replayGoldenLog,
} from '../support/golden-log';
import { startTestServer } from '../support/test-server';

/** `events` loaded as a log and read back through the versioned port (upcast), in a directory of its own. */
async function readThroughPort(prefix: string, events: ReturnType<typeof readGoldenEvents>) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  await loadGoldenLog(dataDir, events);
  const store = versionedEventStore(SqliteEventStore.open(path.join(dataDir, 'events.sqlite')), EVENT_CATALOG);
  try {
    return await store.readAll(undefined, 10_000);
  } finally {
    await store.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The events read whose data does not fit the current schema of their type. */
const misfitsOf = (read: Awaited<ReturnType<typeof readThroughPort>>) =>
  read.flatMap((e) => {
    const result = EVENT_CATALOG.get(e.type)?.schema.safeParse(e.data);
    return result?.success ? [] : [{ position: e.position, type: e.type, issues: result?.error.issues }];
  });

/** The types of `events` the service no longer knows: an old log must never hold one. */
const unknownTypes = (events: ReturnType<typeof readGoldenEvents>) =>
  [...new Set(events.map((e) => e.type))].filter((type) => !EVENT_CATALOG.has(type));

/**
 * The replay means what the log meant when it was written: every reader gets the recorded answer
 * (answers.json) and every resource the recorded audit history. Pinned by meaning, not by bytes:
 * a field added since (to an answer, a history step, or a stored document) is allowed; a recorded
 * field that changed, an answer or a step that went missing or appeared, is not.
 */
function expectSameMeaning(
  replayed: Awaited<ReturnType<typeof replayGoldenLog>>,
  expected: GoldenExpected,
  folder: string,
): void {
  const answers = JSON.parse(fs.readFileSync(path.join(folder, 'answers.json'), 'utf8')) as GoldenAnswers;
  expect(Object.keys(replayed.answers).sort()).toEqual(Object.keys(answers).sort());
  expect(replayed.answers).toMatchObject(answers);
  expect(Object.keys(replayed.histories)).toEqual(Object.keys(expected.histories));
  expect(replayed.histories).toMatchObject(expected.histories);
}

/**
 * The golden log (test/fixtures/golden-log): a log written by the service before events carried
 * versions, every event type in it. Today's service must read it as it did then: the same
 * read-model digest, the same audit history of each resource, every event current once upcast.
 */
describe('the golden log', () => {
  const events = readGoldenEvents();
  const expected = JSON.parse(fs.readFileSync(GOLDEN_EXPECTED, 'utf8')) as GoldenExpected;

  it('given the golden log, then every event type it holds is one the service knows, and its shares are of version 1', () => {
    expect(unknownTypes(events)).toEqual([]);
    const shares = events.filter((e) => e.type === 'ResourceShared');
    expect(shares.length).toBeGreaterThan(0);
    expect(shares.every((e) => !('schemaVersion' in e.metadata) && !('reason' in (e.data as object)))).toBe(true);
  });

  it('given the golden log, when today’s service replays it, then every reader gets the recorded answers and audit histories', async () => {
    // when
    const replayed = await replayGoldenLog(
      (dataDir) => startTestServer({ DATA_DIR: dataDir }),
      demo.users.auditor,
      events,
    );
    // then
    expectSameMeaning(replayed, expected, GOLDEN_DIR);
  });

  it('given the golden log, when it is read through the port, then every event fits its current schema', async () => {
    // when
    const read = await readThroughPort('prs-golden-read-', events);
    // then
    expect(read).toHaveLength(events.length);
    expect(misfitsOf(read)).toEqual([]);
    expect(read.filter((e) => e.type === 'ResourceShared').map((e) => (e.data as { reason: unknown }).reason)).toEqual([
      null,
      null,
    ]);
  });
});

/**
 * The second golden log (test/fixtures/golden-log-v2): written once every event was stamped with its
 * version, ResourceShared at version 2 with and without a reason. With the first, every version of every
 * type is replayed.
 */
describe('the golden log of version 2', () => {
  const events = readGoldenEvents(path.join(GOLDEN_V2_DIR, 'events.jsonl'));
  const expected = JSON.parse(fs.readFileSync(path.join(GOLDEN_V2_DIR, 'expected.json'), 'utf8')) as GoldenExpected;

  it('given the log, then every event type it holds is known, each stamped with a version the service reads', () => {
    expect(unknownTypes(events)).toEqual([]);
    const unreadable = events.filter(
      (e) =>
        typeof e.metadata.schemaVersion !== 'number' ||
        e.metadata.schemaVersion > currentVersionOf(EVENT_CATALOG, e.type),
    );
    expect(unreadable).toEqual([]);
    expect(
      events.filter((e) => e.type === 'ResourceShared').map((e) => (e.data as { reason: unknown }).reason),
    ).toEqual([null, 'Harbour Founders review decks']);
  });

  it('given the log, when today’s service replays it, then every reader gets the recorded answers and audit histories', async () => {
    // when
    const replayed = await replayGoldenLog(
      (dataDir) => startTestServer({ DATA_DIR: dataDir }),
      demo.users.auditor,
      events,
    );
    // then
    expectSameMeaning(replayed, expected, GOLDEN_V2_DIR);
    expect(JSON.stringify(replayed.histories)).toContain('"reason":"Harbour Founders review decks"');
  });

  it('given the log, when it is read through the port, then every event fits its current schema, unversioned', async () => {
    // when
    const read = await readThroughPort('prs-golden-v2-read-', events);
    // then
    expect(read).toHaveLength(events.length);
    expect(misfitsOf(read)).toEqual([]);
    expect(read.filter((e) => 'schemaVersion' in (e.metadata as object))).toEqual([]);
  });
});
