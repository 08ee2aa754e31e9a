/**
 * Preloaded into a service process (`node -r bench/unchained-log.cjs dist/src/main.js`, e.g. by
 * bench/ab-pairs.ts through AB_FLAGS_A) to measure what the hash chain costs the service's own
 * appends: its embedded event log is opened with `hashChain: false`, the option the store keeps
 * for measuring only. Benchmarks only: a log appended to this way is not chained, and
 * `resources-cli audit verify` names its first unhashed event after a chained one.
 */
const path = require('node:path');
const { isMainThread } = require('node:worker_threads');

// Preloads run in worker threads too (the log's commit thread): the option reaches it from the main thread.
if (isMainThread) {
  // The build the process runs (…/src/main.js): patch that build's store, the module main.js loads.
  const storeModule = path.join(path.dirname(process.argv[1]), 'infra', 'sqlite', 'sqlite-event-store.js');
  const { SqliteEventStore } = require(storeModule);
  const open = SqliteEventStore.open;
  SqliteEventStore.open = (file, options) => open.call(SqliteEventStore, file, { ...options, hashChain: false });
}
