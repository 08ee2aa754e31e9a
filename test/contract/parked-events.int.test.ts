/**
 * The parked events of the ProjectionStore port, on every read database: SQLite, the MongoDB
 * adapter on the mingo stand-in (as a replica set, whose batches are transactions) and PostgreSQL.
 * A parked event is written in the batch whose checkpoint moves past it, so both or neither stay.
 */
import { mongoProjectionStore } from '../../src/infra/mongo/mongo-read-db';
import { postgresProjectionStore } from '../../src/infra/postgres/postgres-read-db';
import { SqliteReadDb, sqliteProjectionStore } from '../../src/infra/sqlite/sqlite-read-db';
import type { ParkedEvent, ProjectionStore } from '../../src/projections/read-model-projection';
import { mingoReadDb } from '../support/mingo-mongo';
import { describeOnPostgres, type StoreContract, withFreshStore } from '../support/read-db-adapters';

const parked = (position: bigint, over: Partial<ParkedEvent> = {}): ParkedEvent => ({
  readModel: 'notes',
  streamId: `note-${position}`,
  position,
  type: 'NoteWritten',
  error: 'boom',
  failures: 5,
  firstFailedAt: '2026-11-28T10:00:00.000Z',
  lastFailedAt: '2026-11-28T10:05:00.000Z',
  ...over,
});

const parkedEventsContract: StoreContract<ProjectionStore> = (name, open) => {
  describe(`${name} (parked events)`, () => {
    let store!: ProjectionStore;
    withFreshStore(open, (opened) => {
      store = opened;
    });

    it('given events parked in batches, when listed, then each is there once, in log order, with what was recorded', async () => {
      // given
      await store.commit('notes', 12n, async () => {
        await store.park(parked(12n));
        await store.park(parked(3n, { error: 'first' }));
      });
      await store.commit('other', 7n, async () => store.park(parked(7n, { readModel: 'other' })));
      // when
      const list = await store.parked('notes');
      // then
      expect(list).toEqual([parked(3n, { error: 'first' }), parked(12n)]);
      expect(await store.parked('other')).toEqual([parked(7n, { readModel: 'other' })]);
      expect(await store.checkpoint('notes')).toBe(12n);
    });

    it('given a parked event, when parked again (a retry that failed), then the record is replaced, not doubled', async () => {
      // given
      await store.commit('notes', 3n, async () => store.park(parked(3n)));
      // when
      await store.park(parked(3n, { error: 'again', failures: 6, lastFailedAt: '2026-11-28T11:00:00.000Z' }));
      // then
      expect(await store.parked('notes')).toEqual([
        parked(3n, { error: 'again', failures: 6, lastFailedAt: '2026-11-28T11:00:00.000Z' }),
      ]);
    });

    it('given a batch that fails after parking, then neither the parked event nor the checkpoint is kept', async () => {
      // when
      const failing = store.commit('notes', 3n, async () => {
        await store.park(parked(3n));
        throw new Error('the batch fails');
      });
      // then
      await expect(failing).rejects.toThrow('the batch fails');
      expect(await store.parked('notes')).toEqual([]);
      expect(await store.checkpoint('notes')).toBeUndefined();
    });

    it('given parked events, when one is unparked, then only it is gone, and unparking it again says so', async () => {
      // given
      await store.commit('notes', 5n, async () => {
        await store.park(parked(3n));
        await store.park(parked(5n));
      });
      // when
      const first = await store.unpark('notes', 3n);
      const again = await store.unpark('notes', 3n);
      // then
      expect([first, again]).toEqual([true, false]);
      expect(await store.parked('notes')).toEqual([parked(5n)]);
    });

    it('given parked events, when the read model is reset for a rebuild, then its parked events go with it', async () => {
      // given
      await store.commit('notes', 3n, async () => store.park(parked(3n)));
      await store.commit('other', 7n, async () => store.park(parked(7n, { readModel: 'other' })));
      // when
      await store.reset('notes');
      // then
      expect(await store.parked('notes')).toEqual([]);
      expect(await store.parked('other')).toHaveLength(1);
    });
  });
};

parkedEventsContract('SQLite', async () => {
  const read = SqliteReadDb.open(':memory:');
  return { store: sqliteProjectionStore(read, []), dispose: async () => read.close() };
});
parkedEventsContract('MongoDB on the mingo stand-in (a replica set)', async () => {
  const read = mingoReadDb({ transactions: true });
  return { store: mongoProjectionStore(read, []), dispose: async () => undefined };
});
describeOnPostgres(parkedEventsContract, 'PostgreSQL', (read) => postgresProjectionStore(read, []));
