import type { RecordedEvent } from '../infra/event-store/event-store';
import type { IndexSpec, ReadStore } from '../infra/read-store/read-store';

/**
 * A projector folds events into read-model documents. `apply` must be idempotent: the runner
 * may deliver an event again after a crash between applying it and saving the checkpoint.
 */
export interface Projection {
  readonly name: string;
  /** The read-model collections this projection owns (for digests and rebuilds). */
  readonly collections: readonly string[];
  readonly indexes: readonly IndexSpec[];
  apply(event: RecordedEvent, store: ReadStore): Promise<void>;
}
