import type { Config } from '../config';
import type { SessionVerifier } from '../infra/auth/session-verifier';
import type { Cache, RateLimiter } from '../infra/cache/cache';
import type { EventStore } from '../infra/event-store/event-store';
import type { Logger } from '../infra/logger';
import type { Metrics } from '../infra/metrics';
import type { ReadStore } from '../infra/read-store/read-store';
import type { Secrets } from '../infra/dev-secrets';
import type { FileStore } from '../infra/files/file-store';
import type { FilesStore } from '../projections/files/files-store';
import type { DirectoryReader } from '../projections/directory/directory-reader';
import type { ProjectionRunner } from '../projections/projection-runner';
import type { ReadModels } from '../projections/read-models';

/** Everything a route needs, built once by the composition root. */
export type AppContext = {
  readonly config: Config;
  readonly logger: Logger;
  readonly secrets: Secrets;
  readonly eventStore: EventStore;
  readonly readStore: ReadStore;
  readonly cache: Cache & RateLimiter;
  readonly runner: ProjectionRunner;
  readonly readModels: ReadModels;
  readonly directory: DirectoryReader;
  readonly sessions: SessionVerifier;
  readonly clock: () => Date;
  readonly metrics: Metrics;
  /** The uploaded files' bytes, and the files read model (uploads, references). */
  readonly fileStore: FileStore;
  readonly files: FilesStore;
};
