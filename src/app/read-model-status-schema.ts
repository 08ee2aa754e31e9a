import { z } from 'zod';
import { parkedEventSchema } from './parked-event-schemas';
import { component, count, isoTimestamp } from '../contract/primitives';

/** GET /internal/read-models: what the projections console shows. */

const position = z.string().regex(/^[0-9]+$/);

const rowExample = {
  name: 'resources',
  generation: 1,
  state: 'leading',
  position: '42',
  leaderPosition: '42',
  lag: { events: 0, seconds: 0 },
  eventsPerSecond: 0.5,
  lastError: null,
  problem: null,
  parked: [],
} as const;

const rebuildExample = {
  jobId: '0f8e2d1c-3b4a-4c5d-8e6f-7a8b9c0d1e2f',
  phase: 'replaying',
  readModels: ['resources'],
  generation: 2,
  progress: { position: '30', head: '42', eventsApplied: 28 },
} as const;

export const readModelStatusSchema = component(
  'ReadModelStatus',
  {
    name: z.string().meta({ description: 'The read model', example: rowExample.name }),
    generation: count.meta({
      description: 'The generation this row is of: the one served, or the one a running rebuild builds',
      example: rowExample.generation,
    }),
    state: z.enum(['leading', 'following', 'stopped', 'rebuilding']).meta({
      description:
        '`leading`: this process folds the events into the read model; `following`: another process does and ' +
        'this one reads its checkpoint; `stopped`: this process does not keep it up to date (its projection ' +
        'failed, or it is not running); `rebuilding`: the generation a rebuild of this process builds',
      example: rowExample.state,
    }),
    position: position.nullable().meta({
      description: 'The log position this process knows the read model to hold; null before the first event',
      example: rowExample.position,
    }),
    leaderPosition: position.nullable().meta({
      description:
        'The checkpoint stored with the read model, as the leading process wrote it; null before the first ' +
        'event, or when the store did not answer in time',
      example: rowExample.leaderPosition,
    }),
    lag: z
      .strictObject({
        events: count.meta({
          description: "How many events of the log lie past `position` (the log's head minus `position`)",
          example: 0,
        }),
        seconds: z.number().min(0).meta({
          description: 'The age of the oldest event not yet folded here (when it was appended); 0 when none is',
          example: 0,
        }),
      })
      .meta({ description: "How far `position` is behind the log's head", example: rowExample.lag }),
    eventsPerSecond: z.number().min(0).meta({
      description:
        'Events this process folded into the read model per second over the last minute (0 where it follows)',
      example: rowExample.eventsPerSecond,
    }),
    lastError: z
      .strictObject({
        message: z.string().meta({
          description: "What failed and the error's class; the service's log has the whole error",
          example: 'the projection failed on an event (TypeError)',
        }),
        position: position.nullable().meta({
          description: 'The event it failed on; otherwise the position the read model stood at',
          example: '43',
        }),
        at: isoTimestamp.meta({ description: 'When', example: '2026-01-02T03:04:05.000Z' }),
      })
      .nullable()
      .meta({
        description: 'The last error this process met keeping the read model, kept after it recovered; null if none',
        example: null,
      }),
    problem: z.string().nullable().meta({
      description: 'Why the read model is not kept up to date here now (as readiness says); null when it is',
      example: null,
    }),
    parked: z.array(parkedEventSchema).readonly().meta({
      description:
        'The events this read model set aside instead of stopping on them (PROJECTION_PARK_AFTER), in log order',
    }),
  },
  { example: rowExample },
);

export const readModelsStatusSchema = component(
  'ReadModelsStatus',
  {
    at: isoTimestamp.meta({
      description: 'When this answer was computed (answers are reused for up to a second)',
      example: '2026-01-02T03:04:05.000Z',
    }),
    generation: count.meta({ description: 'The read-model generation served', example: 1 }),
    head: position
      .nullable()
      .meta({ description: "The log's newest position; null when the log is empty or did not answer", example: '42' }),
    readModels: z
      .array(readModelStatusSchema)
      .readonly()
      .meta({
        description:
          'One row per read model of the served generation, then one per read model a running rebuild builds',
        example: [rowExample],
      }),
    rebuild: z
      .strictObject({
        jobId: z.string().meta({ description: 'The job', example: rebuildExample.jobId }),
        phase: z
          .enum(['queued', 'replaying', 'switching', 'done', 'failed'])
          .meta({ description: 'Where the job is (see RebuildJob)', example: rebuildExample.phase }),
        readModels: z
          .array(z.string())
          .readonly()
          .meta({ description: 'The read models it rebuilds', example: rebuildExample.readModels }),
        generation: count.nullable().meta({
          description: 'The generation it builds; null until it is opened',
          example: rebuildExample.generation,
        }),
        progress: z
          .strictObject({
            position: position.meta({ description: 'What every rebuilt read model has folded', example: '30' }),
            head: position.meta({ description: "The log's head when the replay began", example: '42' }),
            eventsApplied: count.meta({ description: 'Events folded so far', example: 28 }),
          })
          .meta({ description: 'How far the replay got', example: rebuildExample.progress }),
      })
      .nullable()
      .meta({
        description:
          "The rebuild job running in this process; null when none runs here (another process's is not seen)",
        example: rebuildExample,
      }),
  },
  {
    example: {
      at: '2026-01-02T03:04:05.000Z',
      generation: 1,
      head: '42',
      readModels: [rowExample],
      rebuild: rebuildExample,
    },
  },
);

export type ReadModelsStatus = z.output<typeof readModelsStatusSchema>;
export type ReadModelStatus = z.output<typeof readModelStatusSchema>;
