import { randomUUID } from 'node:crypto';
import { PostgresEventStore } from '../../src/infra/postgres/postgres-event-store';
import type { EventStore } from '../../src/ports/event-store';
import { describeExternal, externalTarget } from '../support/external';
import { dropSchema, freshSchema } from '../support/postgres';
import { describeEventStoreContract } from './event-store-contract';

const postgres = externalTarget('postgres');

describeExternal('event store contract (PostgreSQL)', postgres, () => {
  const url = postgres.kind === 'url' ? postgres.url : '';

  // A fresh schema for each test: the store holds that test's events only.
  describeEventStoreContract('PostgresEventStore', async () => {
    const schema = freshSchema('contract');
    const store = await PostgresEventStore.connect(url, { schema });
    const others: EventStore[] = [];
    const opened = (other: EventStore) => {
      others.push(other);
      return other;
    };
    return {
      store,
      isolated: true,
      stream: (name) => `${name}-${randomUUID()}`,
      another: () => opened(PostgresEventStore.open(url, { schema })),
      // The schema dropped and made again under the same name: an empty log, migrated afresh.
      recreated: async () => {
        await dropSchema(url, schema);
        return opened(await PostgresEventStore.connect(url, { schema }));
      },
      dispose: async () => {
        await Promise.all([store, ...others].map((s) => s.close()));
        await dropSchema(url, schema);
      },
    };
  });
});
