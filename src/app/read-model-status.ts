import type { EventStore } from '../ports/event-store';
import type { CheckpointSource, ProjectionStore, ReadModelProjection } from '../projections/read-model-projection';
import type { ReadModelRunner } from '../projections/read-model-runner';
import type { ReadSide } from './read-side';
import type { RebuildJobs } from './rebuild-jobs';
import type { ReadModelStatus, ReadModelsStatus } from './read-model-status-schema';
import { READ_MODEL_NAMES, type ReadModelName } from './read-model-list';
import { parkedEventJson } from './parked-event-schemas';

/** An answer serves every console asking within this long: polls of many consoles cost one computation. */
const REUSE_MS = 1000;
/** A store that does not answer within this long leaves its figure out (null) rather than hold the answer. */
const QUERY_BOUND_MS = 2000;

type Deps = {
  readonly readSide: Pick<ReadSide, 'current' | 'rebuilding' | 'parked'>;
  readonly rebuildJobs: Pick<RebuildJobs, 'current'>;
  readonly events: Pick<EventStore, 'headPosition' | 'readAll'>;
  readonly clock: () => Date;
};

/**
 * The state of every read model for operators (GET /internal/read-models): the runners' own
 * figures from memory, plus the log's head, one query for the stored checkpoints of each
 * generation, and, only where a read model lags, the first event it has not folded (its age).
 * One computation at a time, its answer reused for a second: a console polling, or many, never
 * add load that grows with them.
 */
export class ReadModelStatusReader {
  private reused: { readonly until: number; readonly answer: ReadModelsStatus } | undefined;
  private computing: Promise<ReadModelsStatus> | undefined;

  constructor(private readonly deps: Deps) {}

  read(): Promise<ReadModelsStatus> {
    if (this.reused && Date.now() < this.reused.until) return Promise.resolve(this.reused.answer);
    this.computing ??= this.compute()
      .then((answer) => {
        this.reused = { until: Date.now() + REUSE_MS, answer };
        return answer;
      })
      .finally(() => {
        this.computing = undefined;
      });
    return this.computing;
  }

  private async compute(): Promise<ReadModelsStatus> {
    const { readSide, rebuildJobs, events, clock } = this.deps;
    const served = readSide.current;
    const building = readSide.rebuilding;
    const job = rebuildJobs.current;
    const head = await bounded(events.headPosition());
    const stored = await bounded(storedCheckpoints(served.readModels.runners.map((r) => r.projection)));
    const parked = await bounded(readSide.parked());
    const now = clock();
    const rows: Omit<ReadModelStatus, 'lag'>[] = [];
    const positions: (bigint | undefined)[] = [];
    // Each row is named as the rebuild and parked-event routes name the read model, so an
    // operator (and the console) can act on a row by its name; the runner's own name is its
    // checkpoint's, which those routes do not take.
    for (const name of READ_MODEL_NAMES) {
      const runner = served.runners[name];
      positions.push(runner.checkpoint);
      rows.push({
        ...rowOf(name, runner, served.number, stateOf(runner), stored?.get(runner.name)),
        parked: (parked?.[name] ?? []).map((event) => parkedEventJson(event, name)),
      });
    }
    // The builder writes its generation alone: what it holds is what is stored.
    const nameOf = new Map(READ_MODEL_NAMES.map((name) => [served.runners[name].name, name]));
    for (const runner of building?.readModels.runners ?? []) {
      const name = nameOf.get(runner.name);
      if (name === undefined) continue;
      positions.push(runner.checkpoint);
      rows.push(rowOf(name, runner, building?.number ?? 0, 'rebuilding', runner.checkpoint));
    }
    const ages = await oldestUnfoldedAges(events, positions, head, now);
    return {
      at: now.toISOString(),
      generation: served.number,
      head: text(head),
      readModels: rows.map((row, i) => {
        const at = positions[i];
        const behind = head !== undefined && (at === undefined || at < head) ? head - (at ?? 0n) : 0n;
        return { ...row, lag: { events: Number(behind), seconds: behind > 0n ? (ages.get(at) ?? 0) : 0 } };
      }),
      rebuild: job
        ? {
            jobId: job.jobId,
            phase: job.phase,
            readModels: job.readModels,
            generation: building?.number ?? null,
            progress: job.progress,
          }
        : null,
    };
  }
}

function stateOf(runner: ReadModelRunner): ReadModelStatus['state'] {
  if (runner.stopped || !runner.isRunning) return 'stopped';
  return runner.isLeading ? 'leading' : 'following';
}

function rowOf(
  name: ReadModelName,
  runner: ReadModelRunner,
  generation: number,
  state: ReadModelStatus['state'],
  leaderPosition: bigint | undefined,
): Omit<ReadModelStatus, 'lag'> {
  const error = runner.lastError;
  return {
    name,
    generation,
    state,
    position: text(runner.checkpoint),
    leaderPosition: text(leaderPosition),
    // Two decimals: a rate read by people, the same figure from one poll to the next.
    eventsPerSecond: Math.round(runner.eventsPerSecond * 100) / 100,
    lastError: error ? { message: error.message, position: text(error.position), at: error.at.toISOString() } : null,
    problem: state === 'rebuilding' ? null : (runner.problem ?? null),
    // A generation being built answers none: its parked events are listed once it is served.
    parked: [],
  };
}

/** The stored checkpoints of these read models: one query per database (checkpointSource), else one per store. */
async function storedCheckpoints(projections: readonly ReadModelProjection[]): Promise<Map<string, bigint>> {
  const bySource = new Map<CheckpointSource | ProjectionStore, ReadModelProjection[]>();
  for (const projection of projections) {
    const key = projection.store.checkpointSource ?? projection.store;
    bySource.set(key, [...(bySource.get(key) ?? []), projection]);
  }
  const found = new Map<string, bigint>();
  for (const group of bySource.values()) {
    const source = group[0]?.store.checkpointSource;
    if (source) {
      for (const [name, position] of await source.checkpoints(group.map((p) => p.name))) found.set(name, position);
      continue;
    }
    for (const projection of group) {
      const position = await projection.store.checkpoint(projection.name);
      if (position !== undefined) found.set(projection.name, position);
    }
  }
  return found;
}

/**
 * The age in seconds of the first event past each lagging position: how long the oldest event not
 * yet folded there has waited. One read of one event per distinct position (they are few: the
 * read models stand together as a rule).
 */
async function oldestUnfoldedAges(
  events: Deps['events'],
  positions: readonly (bigint | undefined)[],
  head: bigint | undefined,
  now: Date,
): Promise<Map<bigint | undefined, number>> {
  const ages = new Map<bigint | undefined, number>();
  if (head === undefined) return ages;
  for (const position of new Set(positions)) {
    if (position !== undefined && position >= head) continue;
    const next = (await bounded(events.readAll(position, 1)))?.[0];
    const appended = next ? Date.parse(next.metadata.at) : Number.NaN;
    if (!Number.isNaN(appended)) ages.set(position, Math.max(0, Math.round(now.getTime() - appended) / 1000));
  }
  return ages;
}

const text = (position: bigint | undefined): string | null => (position === undefined ? null : position.toString());

/** The query's answer, or undefined when it fails or takes longer than QUERY_BOUND_MS. */
async function bounded<T>(query: Promise<T>): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), QUERY_BOUND_MS);
    timer.unref();
  });
  try {
    return await Promise.race([query.catch(() => undefined), late]);
  } finally {
    clearTimeout(timer);
  }
}
