import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Prometheus metrics of one process. Labels never carry ids or user data: routes are templates. */
export class Metrics {
  readonly registry = new Registry();
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  readonly eventsAppended: Counter<'stream_type'>;
  readonly projectionCheckpoint: Gauge<'projection'>;
  readonly projectionLag: Gauge<'projection'>;
  readonly projectionLeading: Gauge<'projection'>;

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
    this.projectionCheckpoint = new Gauge({
      name: 'read_model_checkpoint_position',
      help: 'Global position of the last event each projection committed',
      labelNames: ['projection'],
      registers: [this.registry],
    });
    this.projectionLeading = new Gauge({
      name: 'read_model_leading',
      help: '1 while this process holds the projection (writes the read model), 0 while it follows another',
      labelNames: ['projection'],
      registers: [this.registry],
    });
    this.projectionLag = new Gauge({
      name: 'read_model_lag_events',
      help: 'Events in the log that each projection has not committed yet',
      labelNames: ['projection'],
      registers: [this.registry],
    });
  }
}
