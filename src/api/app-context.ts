import type { Config } from '../config';
import type { TokenVerifier } from '../infra/auth/verified-token-cache';
import type { Cache, RateLimiter } from '../infra/cache/cache';
import type { EventStore } from '../infra/event-store/event-store';
import type { IdempotencyKeys } from '../infra/event-store/idempotency-keys';
import type { LogIntegrity } from '../infra/event-store/log-integrity';
import type { Logger } from '../infra/logger';
import type { Metrics } from '../infra/metrics';
import type { Secrets } from '../infra/dev-secrets';
import type { FileStore } from '../infra/files/file-store';
import type { FilesStore } from '../projections/files/files-store';
import type { DirectoryReader } from '../projections/directory/directory-reader';
import type { ApplicationStore } from '../projections/applications/application-store';
import type { ResourceViewStore } from '../projections/resources/resource-view-store';
import type { ReadDb } from '../infra/read-models/read-db';
import type { AnswerMemo } from '../infra/read-models/answer-memo';
import type { ReadModels } from '../projections/read-models';
import type { ReadSide } from '../read-side';
import type { ApiKeyStore } from '../projections/apikeys/apikey-store';

/** Everything a route needs, built once by the composition root. */
export type AppContext = {
  readonly config: Config;
  readonly logger: Logger;
  readonly secrets: Secrets;
  readonly eventStore: EventStore;
  /** What each Idempotency-Key stands for, kept in the event store (src/api/idempotency.ts). */
  readonly idempotencyKeys: IdempotencyKeys;
  /** The log's hash chain, where the event store keeps one (the embedded store; issue 27). */
  readonly logIntegrity?: LogIntegrity;
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
