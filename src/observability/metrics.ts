import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Prometheus metrics of one process. Labels never carry ids or user data: routes are templates. */
export class Metrics {
  readonly registry = new Registry();
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  readonly eventsAppended: Counter<'stream_type'>;
  readonly projectionCheckpoint: Gauge<'projection'>;
  readonly projectionLag: Gauge<'projection'>;
  readonly projectionLeading: Gauge<'projection'>;
  readonly projectionStopped: Gauge<'projection'>;
  readonly projectionParked: Gauge<'projection'>;
  readonly writeVisible: Histogram;
  readonly apiKeyVerifications: Counter<'outcome'>;
  readonly rebuilds: Counter<'outcome'>;
  readonly rebuildRunning: Gauge;

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    this.httpDuration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request duration by route template and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [this.registry],
    });
    this.eventsAppended = new Counter({
      name: 'events_appended_total',
      help: 'Events appended to the event store by this process, by stream type',
      labelNames: ['stream_type'],
      registers: [this.registry],
    });
    this.projectionCheckpoint = this.projectionGauge(
      'read_model_checkpoint_position',
      'Global position of the last event each projection committed',
    );
    this.projectionLeading = this.projectionGauge(
      'read_model_leading',
      '1 while this process holds the projection (writes the read model), 0 while it follows another',
    );
    this.writeVisible = new Histogram({
      name: 'write_visible_seconds',
      help: "From a write's append to its change being visible to every read model (the wait before a write answers)",
      // 0.025: whether the p99 stays under 25 ms (docs/benchmarks.md, PostgreSQL's targets) is a bucket's edge.
      buckets: [0.001, 0.002, 0.003, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.025, 0.03, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [this.registry],
    });
    this.apiKeyVerifications = new Counter({
      name: 'api_key_verifications_total',
      help: 'API-key secret verifications (argon2 runs) by outcome: match, mismatch; busy: refused, every slot taken',
      labelNames: ['outcome'],
      registers: [this.registry],
    });
    this.projectionLag = this.projectionGauge(
      'read_model_lag_events',
      'Events in the log that each projection has not committed yet',
    );
    this.projectionStopped = this.projectionGauge(
      'read_model_projection_failed',
      '1 while this process stands down from a projection that failed (a bug: alert on ' +
        'it); it retries on a long backoff',
    );
    // Counted where the job runs, whoever asked for it (the operator route, the console, the
    // automatic rebuild of a read model at another version): a POST counted at the HTTP layer
    // misses the automatic ones and says nothing of how a job ended.
    this.rebuilds = new Counter({
      name: 'read_model_rebuilds_total',
      help: 'Rebuild jobs of the read models this process ran to their end, by outcome: succeeded, failed',
      labelNames: ['outcome'],
      registers: [this.registry],
    });
    // Both series exist from the start, so increase() over them sees a process's first job.
    for (const outcome of ['succeeded', 'failed']) this.rebuilds.inc({ outcome }, 0);
    this.rebuildRunning = new Gauge({
      name: 'read_model_rebuild_running',
      help: '1 while a rebuild job runs in this process, from the moment it holds the rebuild lock to its end',
      registers: [this.registry],
    });
    this.projectionParked = this.projectionGauge(
      'projection_parked_events',
      'Events each projection parked after failing on them (PROJECTION_PARK_AFTER): an operator retries or skips them',
    );
  }

  /** What a rebuild job reports, and nothing else of this registry: src/app/rebuild-jobs.ts. */
  get rebuildMetrics(): RebuildMetrics {
    return { rebuilds: this.rebuilds, rebuildRunning: this.rebuildRunning };
  }

  /** A gauge with one series per projection, on this process's registry. */
  private projectionGauge(name: string, help: string): Gauge<'projection'> {
    return new Gauge({ name, help, labelNames: ['projection'], registers: [this.registry] });
  }
}

/** The two metrics of rebuild jobs. */
export type RebuildMetrics = {
  readonly rebuilds: Pick<Counter<'outcome'>, 'inc'>;
  readonly rebuildRunning: Pick<Gauge, 'set'>;
};
