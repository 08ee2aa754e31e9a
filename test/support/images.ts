/**
 * The store images the real-server suites start where Docker answers: the same published tags,
 * pinned to a patch version, that docker-compose.yml runs (test/config/compose-file.unit.test.ts
 * holds the two in step).
 */
export const EVENTSTORE_IMAGE = 'eventstore/eventstore:24.10.0-bookworm-slim';
export const MONGO_IMAGE = 'mongo:7.0.14';
export const REDIS_IMAGE = 'redis:7.2.5-alpine';
