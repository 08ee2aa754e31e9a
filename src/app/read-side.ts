import type { Config } from '../config/config';
import type { EventStore } from '../ports/event-store';
import type { Logger } from '../observability/logger';
import type { ReadDb } from '../infra/read-db';
import { closeReadDb, finishBulkLoad } from '../infra/read-db';
import type { ReadGenerations, RebuildLock } from '../infra/read-generations';
import { conflict } from '../domain/errors';
import { DirectoryReader } from '../directory/directory-reader';
import type { ReadModelRunner, RunnerOptions } from '../projections/read-model-runner';
import type { ParkedEvent } from '../projections/read-model-projection';
import { isTransientStoreError } from '../projections/transient-error';
import { ReadModels } from '../projections/read-models';
import { SharedLooks } from '../projections/shared-looks';
import { verifyEventLog } from '../projections/event-log-identity';
import {
  declaredVersion,
  openReadModels,
  READ_MODEL_NAMES,
  type OpenReadModels,
  type ReadModelName,
  type ReadModelStores,
} from './read-model-list';

/** One generation of the read models, open in this process. */
export type Generation = {
  readonly number: number;
  readonly readDb: ReadDb;
  readonly stores: ReadModelStores;
  readonly readModels: ReadModels;
  /** Each read model's runner, by the read model's name. */
  readonly runners: Readonly<Record<ReadModelName, ReadModelRunner>>;
  readonly directory: DirectoryReader;
  /** The read models this generation holds at another version than their code declares. */
  readonly outdated: readonly ReadModelName[];
};

/**
 * How far a rebuild got: the position every rebuilt read model has folded, the log's head when it
 * began, and how many events of the log they have folded so far (those of the slowest).
 */
export type RebuildProgress = {
  readonly position: bigint;
  readonly head: bigint;
  readonly eventsApplied: number;
  readonly eventsPerSecond: number;
};

/** `replaying`: the log is projected into the new generation; `switching`: it is made the served one. */
export type RebuildPhase = 'replaying' | 'switching';

export type RebuildOptions = {
  readonly switchHere: boolean;
  /**
   * The read models projected again from the whole log; the others are carried over from the
   * generation served (see ReadGenerations.openCopy). Every one when absent.
   */
  readonly readModels?: readonly ReadModelName[];
  /** The rebuild lock when taken already (a job takes it as it is asked, so a second is refused then). */
  readonly lock?: RebuildLock;
  readonly phase?: (phase: RebuildPhase) => void;
  readonly progress?: (p: RebuildProgress) => void;
  /** Once the pointer names the new generation: the rebuild is done, what follows is clean-up. */
  readonly switched?: () => void;
};

const WATCH_MS = 500;
/** How long a replaced generation stays open for the requests still reading it. */
const GRACE_MS = 5000;

type Deps = {
  readonly config: Config;
  readonly events: EventStore;
  readonly logger: Logger;
  readonly generations: ReadGenerations;
  /** The role and lease settings of this process's runners; the lease store comes from each generation. */
  readonly runners: (readDb: ReadDb) => RunnerOptions;
  /**
   * Open the current generation even when it was built from another event log (the CLI's rebuild,
   * which replaces it). Otherwise such a generation is refused: EventLogMismatchError.
   */
  readonly acceptAnotherLog?: boolean;
};

/**
 * The read models this process serves from, and blue/green rebuilds: a rebuild projects the
 * whole log into a new generation while the current one keeps answering, then moves the shared
 * pointer; every process watching it switches over, and its projectors continue from the new
 * generation's checkpoints.
 */
export class ReadSide {
  private generation!: Generation;
  private watchTimer: NodeJS.Timeout | undefined;
  /** Set by close: a look at the generation already under way schedules no other. */
  private closed = false;
  private switching: Promise<void> | undefined;

  /** Looks at the pointer, for requests and the watch: one look in flight, however many ask at once. */
  private readonly pointerLooks = new SharedLooks(async () => {
    const number = await this.deps.generations.current();
    if (number !== this.generation.number && !this.closed) await this.switchTo(number);
  });

  private constructor(private readonly deps: Deps) {}

  /**
   * Resolves once this process serves the generation the shared pointer named at a look begun
   * after this call (undefined: it does already, read at once). Every request asks it before it
   * reads, and every write before it is answered: a process that learnt of a new generation only
   * from its watch (every WATCH_MS) would answer meanwhile from one that another process has
   * stopped projecting, and miss writes confirmed there (a privacy change among them).
   */
  served(): Promise<void> | undefined {
    if (this.closed) return undefined;
    const now = this.deps.generations.currentNow?.();
    if (now === undefined) return this.pointerLooks.sync();
    // Read at once (a file): nothing to wait for unless it moved, or a switch is under way.
    return now === this.generation.number && !this.switching ? undefined : this.switchTo(now);
  }

  static async open(deps: Deps): Promise<ReadSide> {
    const side = new ReadSide(deps);
    try {
      side.generation = await side.start(await deps.generations.current());
    } catch (error) {
      await deps.generations.close();
      throw error;
    }
    side.watch();
    return side;
  }

  get current(): Generation {
    return this.generation;
  }

  /** The generation a rebuild of this process is building, and its runners, while one runs. */
  get rebuilding(): { readonly number: number; readonly readModels: ReadModels } | undefined {
    return this.building;
  }

  private building: { readonly number: number; readonly readModels: ReadModels } | undefined;

  /**
   * The events each read model of the generation served has parked (PROJECTION_PARK_AFTER), in
   * log order, named by the read model; every read model is listed, with none or some.
   */
  async parked(): Promise<Record<ReadModelName, ParkedEvent[]>> {
    const { runners } = this.generation;
    const lists = await Promise.all(READ_MODEL_NAMES.map((name) => this.parkedOf(runners[name], name)));
    return Object.fromEntries(READ_MODEL_NAMES.map((name, i) => [name, lists[i]])) as Record<
      ReadModelName,
      ParkedEvent[]
    >;
  }

  private async parkedOf(runner: ReadModelRunner, name: ReadModelName): Promise<ParkedEvent[]> {
    const parked = await runner.projection.store.parked(runner.name);
    return parked.map((event) => ({ ...event, readModel: name }));
  }

  /**
   * Builds generation n+1 from the whole log beside the current one, then switches every process
   * to it. `switchHere`: this process serves the new generation at once (a server); the CLI does not.
   */
  async rebuild(options: RebuildOptions): Promise<Generation | undefined> {
    const lock = options.lock ?? (await this.lockRebuild());
    // Two rebuilds at once would build the same next generation over each other.
    if (!lock) throw conflict('another rebuild of the read models is running: try again once it has switched');
    try {
      return await this.rebuildLocked(options, lock);
    } finally {
      await lock.release();
    }
  }

  /** The rebuild lock, recording `jobId` where the lock can (see ReadGenerations.rebuildJob); null while held. */
  lockRebuild(jobId?: string): Promise<RebuildLock | null> {
    return this.deps.generations.lockRebuild(jobId);
  }

  /** The job of the rebuild holding the lock, when the lock records it. */
  async rebuildJob(): Promise<string | undefined> {
    return this.deps.generations.rebuildJob?.();
  }

  /** Whether some read models can be rebuilt alone here (the others copied over: ReadGenerations.openCopy). */
  get rebuildsSomeAlone(): boolean {
    return this.deps.generations.openCopy !== undefined;
  }

  private copyServed(generation: number): Promise<ReadDb> {
    const { generations } = this.deps;
    // RebuildJobs refuses some read models alone where the generations cannot copy (MongoDB).
    if (!generations.openCopy) throw new Error('these read generations cannot rebuild some read models alone');
    return generations.openCopy(this.generation.readDb, generation);
  }

  private async rebuildLocked(options: RebuildOptions, lock: RebuildLock): Promise<Generation | undefined> {
    const previous = await this.deps.generations.current();
    const next = Math.max(previous, this.generation.number) + 1;
    const some =
      options.readModels && options.readModels.length < READ_MODEL_NAMES.length ? options.readModels : undefined;
    // Some alone: the others are carried over with their checkpoints. All: built from nothing,
    // with the indexes built once at the end (bulkLoad).
    const readDb = some ? await this.copyServed(next) : await this.deps.generations.open(next, { bulkLoad: true });
    const opened = await openReadModels(readDb);
    const projections = some ? some.map((name) => opened.projectionOf[name]) : opened.projections;
    for (const projection of projections) await projection.store.reset(projection.name);
    const head = (await this.deps.events.headPosition()) ?? 0n;
    const started = performance.now();
    const reached = new Map<string, { position: bigint; events: number }>();
    // The builder is the only writer of a generation nobody reads yet: no lease.
    const builder = new ReadModels(this.deps.events, projections, this.deps.logger, {
      role: 'project',
      // The new generation parks what it cannot fold, as the served one does, instead of failing the rebuild.
      parkAfter: this.deps.config.PROJECTION_PARK_AFTER,
      isTransient: isTransientStoreError,
      onCatchUp: (projection, position, events) => {
        reached.set(projection, { position, events: (reached.get(projection)?.events ?? 0) + events });
        const slowest = [...reached.values()].reduce((a, b) => (b.position < a.position ? b : a));
        const seconds = (performance.now() - started) / 1000;
        options.progress?.({
          position: slowest.position,
          head,
          eventsApplied: slowest.events,
          eventsPerSecond: seconds > 0 ? slowest.events / seconds : 0,
        });
      },
    });
    this.building = { number: next, readModels: builder };
    try {
      options.phase?.('replaying');
      try {
        await builder.start();
      } finally {
        await builder.stop();
      }
      for (const name of some ?? READ_MODEL_NAMES) {
        const { store, name: projection } = opened.projectionOf[name];
        await store.setReadModelVersion?.(projection, declaredVersion(name));
      }
      options.phase?.('switching');
      // Events appended from here on are caught up by the runners of the new generation.
      await finishBulkLoad(readDb);
      // A lock lost meanwhile (this process stalled past its TTL) may be another rebuild's now.
      if (!lock.held) throw conflict('the rebuild lost its lock to another rebuild: not switched');
      await this.deps.generations.switchTo(next);
      options.switched?.();
    } finally {
      this.building = undefined;
      await closeReadDb(readDb);
    }
    this.deps.logger.info(
      { generation: next, seconds: (performance.now() - started) / 1000 },
      'read models rebuilt; switched generation',
    );
    if (!options.switchHere) {
      // The CLI: the services switch within WATCH_MS and close the replaced generation after
      // GRACE_MS; then nobody reads it and it is dropped, not left behind.
      await new Promise((resolve) => setTimeout(resolve, GRACE_MS * 2));
      if (previous !== next) await this.deps.generations.drop(previous);
      return undefined;
    }
    await this.switchTo(next);
    const old = previous;
    // A process that closes first leaves the replaced generation behind (dropped by no one until
    // an operator does): dropping it here at once could pull it from under other processes' grace.
    const drop = setTimeout(() => {
      this.drops.delete(drop);
      void this.deps.generations.drop(old).catch(() => undefined);
    }, GRACE_MS * 2).unref();
    this.drops.add(drop);
    return this.generation;
  }

  /** Replaced generations waiting out their grace before they are dropped. */
  private readonly drops = new Set<NodeJS.Timeout>();

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.watchTimer);
    for (const drop of this.drops) clearTimeout(drop);
    await this.switching;
    await this.generation.readModels.stop();
    await closeReadDb(this.generation.readDb);
    await this.deps.generations.close();
  }

  private async start(number: number): Promise<Generation> {
    const readDb = await this.deps.generations.open(number);
    const opened = await openReadModels(readDb);
    const { stores, projections, projectionOf } = opened;
    if (!this.deps.acceptAnotherLog) {
      // Every role checks, followers too: none may serve positions counted in another log.
      try {
        for (const projection of projections) await verifyEventLog(this.deps.events, projection.store, projection.name);
      } catch (error) {
        await closeReadDb(readDb);
        throw error;
      }
    }
    const runnerOptions = this.deps.runners(readDb);
    let outdated: ReadModelName[];
    try {
      outdated = await this.versionsOf(opened, runnerOptions.role !== 'follow');
    } catch (error) {
      await closeReadDb(readDb);
      throw error;
    }
    const readModels = new ReadModels(this.deps.events, projections, this.deps.logger, runnerOptions);
    await readModels.start();
    const runners = Object.fromEntries(
      READ_MODEL_NAMES.map((name) => [name, readModels.runners.find((r) => r.projection === projectionOf[name])]),
    ) as Record<ReadModelName, ReadModelRunner>;
    return {
      number,
      readDb,
      stores,
      readModels,
      runners,
      directory: new DirectoryReader(stores.directory),
      outdated,
    };
  }

  /**
   * The read models whose stored version differs from their code's. A read model with nothing in
   * it yet takes its code's version (a projecting process records it); one that holds a checkpoint
   * but no version was built before versions were recorded: version 1.
   */
  private async versionsOf(opened: OpenReadModels, records: boolean): Promise<ReadModelName[]> {
    const outdated: ReadModelName[] = [];
    for (const name of READ_MODEL_NAMES) {
      const { store, name: projection } = opened.projectionOf[name];
      if (!store.readModelVersion) continue;
      const declared = declaredVersion(name);
      const stored = await store.readModelVersion(projection);
      if (stored === undefined && (await store.checkpoint(projection)) === undefined) {
        if (records) await store.setReadModelVersion?.(projection, declared);
        continue;
      }
      if ((stored ?? 1) !== declared) outdated.push(name);
    }
    return outdated;
  }

  private watch(): void {
    if (this.closed) return;
    this.watchTimer = setTimeout(async () => {
      try {
        await this.pointerLooks.sync();
      } catch (error) {
        this.deps.logger.warn({ err: error }, 'could not read the read-model generation');
      }
      this.watch();
    }, WATCH_MS);
    this.watchTimer.unref();
  }

  /**
   * A new generation is served only once it holds every event appended before the switch: the
   * rebuild stopped at a head, and what came after is folded by its runners only once a projector
   * has switched too. Every write answered anywhere before this moment is then in it. Bounded by
   * PROJECTION_WAIT_MS (no projector running): served as it is after that, with a warning.
   */
  private async caughtUpWithLog(next: Generation): Promise<void> {
    const head = await this.deps.events.headPosition();
    if (head === undefined) return;
    try {
      await next.readModels.waitFor(head, this.deps.config.PROJECTION_WAIT_MS);
    } catch (error) {
      this.deps.logger.warn(
        { err: error, generation: next.number, head: head.toString() },
        'serving a new read-model generation before it caught up with the log',
      );
    }
  }

  private async switchTo(number: number): Promise<void> {
    if (number === this.generation.number) return;
    this.switching ??= (async () => {
      const old = this.generation;
      const next = await this.start(number);
      await this.caughtUpWithLog(next);
      this.generation = next;
      this.deps.logger.info({ from: old.number, to: number }, 'serving a new read-model generation');
      // Writes waiting for the old generation are let go: they wait for this one instead.
      await old.readModels.stop();
      setTimeout(() => void closeReadDb(old.readDb).catch(() => undefined), GRACE_MS).unref();
    })().finally(() => {
      this.switching = undefined;
    });
    await this.switching;
  }
}
