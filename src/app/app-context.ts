import type { Config } from '../config/config';
import type { TokenVerifier } from '../infra/auth/verified-token-cache';
import type { Cache, RateLimiter } from '../ports/cache';
import type { EventStore } from '../ports/event-store';
import type { IdempotencyKeys } from '../ports/idempotency-keys';
import type { Logger } from '../observability/logger';
import type { Metrics } from '../observability/metrics';
import type { Secrets } from '../config/dev-secrets';
import type { FileStore } from '../ports/file-store';
import type { FilesStore } from '../files/files-store';
import type { DirectoryReader } from '../directory/directory-reader';
import type { ApplicationStore } from '../applications/application-store';
import type { ResourceViewStore } from '../resources/resource-view-store';
import type { ReadDb } from '../infra/read-db';
import type { AnswerMemo } from '../projections/answer-memo';
import type { ReadModels } from '../projections/read-models';
import type { ReadSide } from './read-side';
import type { ApiKeyStore } from '../apikeys/api-key-store';

/** Everything a route needs, built once by the composition root. */
export type AppContext = {
  readonly config: Config;
  readonly logger: Logger;
  readonly secrets: Secrets;
  readonly eventStore: EventStore;
  /** What each Idempotency-Key stands for, kept in the event store (src/api/idempotency.ts). */
  readonly idempotencyKeys: IdempotencyKeys;
  readonly readDb: ReadDb;
  /** Whole answers of the read models being served, remembered until they change (GetResourceList). */
  readonly answers: AnswerMemo;
  readonly cache: Cache & RateLimiter;
  readonly readModels: ReadModels;
  readonly readSide: ReadSide;
  readonly apiKeys: ApiKeyStore;
  readonly directory: DirectoryReader;
  readonly resources: ResourceViewStore;
  readonly applications: ApplicationStore;
  readonly sessions: TokenVerifier;
  readonly clock: () => Date;
  readonly metrics: Metrics;
  /** The uploaded files' bytes, and the files read model (uploads, references). */
  readonly fileStore: FileStore;
  readonly files: FilesStore;
};
