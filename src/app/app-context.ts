import type { Config } from '../config/config';
import type { TokenVerifier } from '../ports/token-verifier';
import type { Cache, RateLimiter } from '../ports/cache';
import type { EventStore } from '../ports/event-store';
import type { IdempotencyKeys } from '../ports/idempotency-keys';
import type { LogIntegrity } from '../ports/log-integrity';
import type { Logger } from '../observability/logger';
import type { Metrics } from '../observability/metrics';
import type { Secrets } from '../config/dev-secrets';
import type { PersonalDataKeys } from '../ports/personal-data-keys';
import type { PageCursors } from '../api/page-cursor';
import type { FileStore } from '../ports/file-store';
import type { DirectoryReader } from '../directory/directory-reader';
import type { ReadDb } from '../infra/read-db';
import type { AnswerMemo } from '../projections/answer-memo';
import type { ReadModels } from '../projections/read-models';
import type { ReadSide } from './read-side';
import type { RebuildJobs } from './rebuild-jobs';
import type { Settle } from '../api/route-declaration';
import type { SecretHasher } from '../ports/secret-hasher';
import type { UploadCheck } from '../resources/project-resource-commands';
import type { ReadModelStores } from './read-model-list';
import type { EventCatalog } from '../domain/event-upcasting';

/** Everything a route needs, built once by the composition root. */
export type AppContext = {
  readonly config: Config;
  readonly logger: Logger;
  readonly secrets: Secrets;
  /** The lists' cursors, signed with a key derived from the directory token (src/api/page-cursor.ts). */
  readonly cursors: PageCursors;
  readonly eventStore: EventStore;
  /** Every event type the log stores: its schema (and which of its fields are secret), its upcasters. */
  readonly eventCatalog: EventCatalog;
  /** What each Idempotency-Key stands for, kept in the event store (src/api/idempotency.ts). */
  readonly idempotencyKeys: IdempotencyKeys;
  /** The log's hash chain, where the event store keeps one (the embedded store). */
  readonly logIntegrity?: LogIntegrity;
  readonly readDb: ReadDb;
  /** Whole answers of the read models being served, remembered until they change (GetResourceList). */
  readonly answers: AnswerMemo;
  readonly cache: Cache & RateLimiter;
  readonly readModels: ReadModels;
  readonly readSide: ReadSide;
  /** Rebuilds of the read models asked of this process, run in its background. */
  readonly rebuildJobs: RebuildJobs;
  /** The stores of the read models being served, as one value: a blue/green rebuild replaces them. */
  readonly stores: ReadModelStores;
  readonly directory: DirectoryReader;
  readonly sessions: TokenVerifier;
  readonly clock: () => Date;
  readonly metrics: Metrics;
  /** The uploaded files' bytes. */
  readonly fileStore: FileStore;
  /** The keys the personal fields of events are sealed under; the audit opens them with these. */
  readonly personalDataKeys: PersonalDataKeys;
  /** API keys' one-way secret hash. */
  readonly hasher: SecretHasher;
  /** Whether a resource may point at an upload (the files feature decides). */
  readonly assertUsableUpload: UploadCheck;
  /** Waits for a write and what reacts to it before the write is answered. */
  readonly settle: Settle;
  /** Draining: a SIGTERM came; readiness answers 503 while in-flight requests end. */
  readonly lifecycle: { readonly draining: boolean };
};
