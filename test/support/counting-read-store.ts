import type { Collection, Doc, Filter, ReadStore } from '../../src/infra/read-store/read-store';

export type QueryLog = { collection: string; method: string; filter: Filter }[];

/** A ReadStore decorator that records every query, to count round trips through the port. */
export function countingReadStore(inner: ReadStore, log: QueryLog): ReadStore {
  const wrap = <T extends Doc>(name: string, c: Collection<T>): Collection<T> => ({
    findOne: (f) => (log.push({ collection: name, method: 'findOne', filter: f }), c.findOne(f)),
    find: (f, o) => (log.push({ collection: name, method: 'find', filter: f }), c.find(f, o)),
    findPage: (f, o) => (log.push({ collection: name, method: 'findPage', filter: f }), c.findPage(f, o)),
    count: (f) => (log.push({ collection: name, method: 'count', filter: f }), c.count(f)),
    distinct: (field, f) => (log.push({ collection: name, method: 'distinct', filter: f }), c.distinct(field, f)),
    upsert: (d) => c.upsert(d),
    deleteOne: (f) => c.deleteOne(f),
    deleteMany: (f) => c.deleteMany(f),
  });
  return {
    durable: inner.durable,
    collection: <T extends Doc>(name: string) => wrap<T>(name, inner.collection<T>(name)),
    ensureIndexes: (specs) => inner.ensureIndexes(specs),
    dropAll: () => inner.dropAll(),
    ping: () => inner.ping(),
    close: () => inner.close(),
  };
}
