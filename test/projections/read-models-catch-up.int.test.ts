/**
 * Read models catching up together (src/projections/read-models.ts, as a rebuild does): one read
 * of the log feeds them all, and it asks the event store only for the types they select, so the
 * log's bookkeeping (id allocations) is never read, while every selected event is still folded
 * and every read model reaches the end of the log.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { EventStore, RecordedEvent } from '../../src/ports/event-store';
import { SqliteEventStore } from '../../src/infra/sqlite/sqlite-event-store';
import { createLogger } from '../../src/observability/logger';
import { SqliteReadDb, sqliteProjectionStore } from '../../src/infra/sqlite/sqlite-read-db';
import { selecting, type EventSelection, type ReadModelProjection } from '../../src/projections/read-model-projection';
import { ReadModelRunner } from '../../src/projections/read-model-runner';
import { ReadModels } from '../../src/projections/read-models';
import { eventStoreExcept } from '../support/event-store-double';

const metadata = {
  actor: { userId: 0, credential: 'system' as const },
  correlationId: 't',
  at: '2026-01-01T00:00:00.000Z',
};

/** A read model of one table: the events it folded, as `stream:type`, in order. */
function recordingProjection(
  read: SqliteReadDb,
  name: string,
  selection?: EventSelection,
): ReadModelProjection & { folded(): string[] } {
  read.db.exec(`create table if not exists ${name} (position integer primary key, event text not null)`);
  const insert = read.db.prepare(`insert into ${name} (position, event) values (?, ?)`);
  return {
    name,
    store: sqliteProjectionStore(read, [name]),
    ...(selection ? selecting(selection) : {}),
    async apply(event: RecordedEvent) {
      insert.run(event.position, `${event.streamId}:${event.type}`);
    },
    folded: () =>
      (read.db.prepare(`select event from ${name} order by position`).all() as { event: string }[]).map((r) => r.event),
  };
}

/** The event store, recording the type of every event its readAll answered. */
function recordingReads(inner: EventStore): EventStore & { readTypes: string[] } {
  const readTypes: string[] = [];
  const events = eventStoreExcept(inner, {
    async readAll(from, maxCount, types) {
      const read = await inner.readAll(from, maxCount, types);
      readTypes.push(...read.map((e) => e.type));
      return read;
    },
  });
  return Object.assign(events, { readTypes });
}

describe('read models catching up together', () => {
  let dir: string;
  let log: SqliteEventStore;
  let read: SqliteReadDb;
  let models: { stop(): Promise<void> } | undefined;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'read-models-catch-up-'));
    log = SqliteEventStore.open(path.join(dir, 'events.sqlite'));
    read = SqliteReadDb.open(':memory:');
    // given a log of two read models' events, with bookkeeping neither folds between them
    for (let n = 0; n < 3; n++) {
      await log.appendToStream('sequence-resource', [{ type: 'IdAllocated', data: { id: n }, metadata }], 'any');
      await log.appendToStream(`resource-${n}`, [{ type: 'Created', data: {}, metadata }], 'no_stream');
      await log.appendToStream('directory', [{ type: 'UserUpserted', data: {}, metadata }], 'any');
    }
    await log.appendToStream('sequence-resource', [{ type: 'IdAllocated', data: { id: 3 }, metadata }], 'any');
  });

  afterEach(async () => {
    await models?.stop();
    await log.close();
    read.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const catchUp = async (events: EventStore, projections: readonly ReadModelProjection[]) => {
    const started = new ReadModels(events, projections, createLogger('silent'));
    models = started;
    await started.start();
    return started;
  };

  it('given read models that select their events, when they catch up together, then the log is read for those types only and each folds its own', async () => {
    // given
    const events = recordingReads(log);
    const resources = recordingProjection(read, 'resources', {
      types: new Set(['Created']),
      streams: (s) => s.startsWith('resource-'),
    });
    const directory = recordingProjection(read, 'directory', { types: new Set(['UserUpserted']) });
    // when
    await catchUp(events, [resources, directory]);
    // then
    expect(new Set(events.readTypes)).toEqual(new Set(['Created', 'UserUpserted']));
    expect(resources.folded()).toEqual(['resource-0:Created', 'resource-1:Created', 'resource-2:Created']);
    expect(directory.folded()).toEqual(['directory:UserUpserted', 'directory:UserUpserted', 'directory:UserUpserted']);
  });

  it('given read models that select their events, when they have caught up, then each reaches the end of the log, past the events nobody reads', async () => {
    // given
    const resources = recordingProjection(read, 'resources', { types: new Set(['Created']) });
    const directory = recordingProjection(read, 'directory', { types: new Set(['UserUpserted']) });
    const head = (await log.headPosition()) ?? 0n;
    // when
    const caughtUp = await catchUp(log, [resources, directory]);
    // then
    await expect(caughtUp.waitFor(head, 2000)).resolves.toBeUndefined();
  });

  it('given one read model that does not say which events it folds, when they catch up together, then it is handed every event', async () => {
    // given
    const events = recordingReads(log);
    const resources = recordingProjection(read, 'resources', { types: new Set(['Created']) });
    const everything = recordingProjection(read, 'everything');
    // when
    await catchUp(events, [resources, everything]);
    // then
    expect(everything.folded()).toHaveLength(10);
    expect(events.readTypes).toContain('IdAllocated');
  });

  it('given one read model that selects its events, when its own runner catches up, then the log is read for those types only and it reaches the end', async () => {
    // given
    const events = recordingReads(log);
    const resources = recordingProjection(read, 'resources', { types: new Set(['Created']) });
    const head = (await log.headPosition()) ?? 0n;
    const runner = new ReadModelRunner(events, resources, createLogger('silent'));
    models = runner;
    // when
    await runner.start();
    // then
    expect(new Set(events.readTypes)).toEqual(new Set(['Created']));
    expect(resources.folded()).toHaveLength(3);
    await expect(runner.waitFor(head, 2000)).resolves.toBeUndefined();
  });
});
