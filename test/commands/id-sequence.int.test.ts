import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { nextId } from '../../src/commands/id-sequence';
import { systemActor, type EventMetadata } from '../../src/domain/event';
import { SqliteEventStore } from '../../src/infra/sqlite/sqlite-event-store';

const metadata: EventMetadata = { actor: systemActor, correlationId: 'ids', at: '2024-05-01T10:00:00.000Z' };

describe('nextId', () => {
  let dir: string;
  let file: string;
  let store: SqliteEventStore;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'id-sequence-'));
    file = path.join(dir, 'events.sqlite');
    store = SqliteEventStore.open(file);
  });

  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('starts a new sequence at 1', async () => {
    // when
    const id = await nextId(store, 'resource', metadata);
    // then
    expect(id).toBe(1);
  });

  it('gives 50 concurrent allocations 50 distinct consecutive ids', async () => {
    // when
    const ids = await Promise.all(Array.from({ length: 50 }, () => nextId(store, 'resource', metadata)));
    // then
    expect([...ids].sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(await store.readStream('sequence-resource')).toHaveLength(50);
  });

  it('keeps each sequence separate', async () => {
    // given
    await nextId(store, 'resource', metadata);
    await nextId(store, 'resource', metadata);
    // when
    const id = await nextId(store, 'apikey', metadata);
    // then
    expect(id).toBe(1);
  });

  it('continues after the last allocated id when the store is reopened', async () => {
    // given
    await nextId(store, 'resource', metadata);
    await nextId(store, 'resource', metadata);
    await store.close();
    store = SqliteEventStore.open(file);
    // when
    const id = await nextId(store, 'resource', metadata);
    // then
    expect(id).toBe(3);
  });

  it('records who allocated the id', async () => {
    // when
    await nextId(store, 'resource', metadata);
    // then
    const last = await store.readLastEvent('sequence-resource');
    expect(last).toMatchObject({ type: 'IdAllocated', data: { id: 1 }, metadata });
  });
});
