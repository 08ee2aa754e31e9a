import { z } from 'zod';
import { component, count, integer, isoTimestamp } from '../contract/primitives';

/**
 * The RESPONSE bodies of the API's own answers (the user, problems, the feed, operators, health).
 * The records the queries build (resources, privacy, applications) are stated in src/contract.
 * Both are the source of the OpenAPI document and of the contract test
 * (test/api/openapi.http.test.ts). Records are strict: an extra or a missing field fails.
 *
 * `component(id, shape)` (src/contract/primitives.ts) makes a record strict and names it as an
 * OpenAPI component, referenced wherever it is used.
 */

/** RemoveProjectResource answers `{statusCode: integer}` carrying 200. */
export const removeProjectResourceSchema = component(
  'StatusCode',
  { statusCode: integer.meta({ description: 'Always 200: the resource is gone', example: 200 }) },
  { example: { statusCode: 200 } },
);

/** GET /api/user/getcurrent: the contract leaves its answer open; these six fields are this service's (docs/api.md). */
export const currentUserSchema = component(
  'CurrentUser',
  {
    id: integer.meta({ description: "The caller's user id in the directory", example: 1 }),
    name: z.string().meta({ description: 'The name the directory gives', example: 'Ada' }),
    status: z
      .enum(['active', 'inactive', 'banned'])
      .meta({ description: 'Always `active` here: inactive and banned users get 403', example: 'active' }),
    credential: z
      .enum(['session', 'apiKey'])
      .meta({ description: 'How the caller authenticated: a bearer session or an API key', example: 'session' }),
    apiKeyId: integer.nullable().meta({ description: 'The API key used, null with a session', example: null }),
    impersonatorId: integer
      .nullable()
      .meta({ description: "The administrator acting on the user's behalf, null when none", example: null }),
  },
  {
    example: { id: 1, name: 'Ada', status: 'active', credential: 'session', apiKeyId: null, impersonatorId: null },
  },
);

export type CurrentUser = z.output<typeof currentUserSchema>;

/**
 * The examples' field error is a level sent as a string: zod's words, which stay true whatever
 * levels the resources feature defines (this layer cannot ask it for them).
 */
const fieldErrorExample = {
  field: 'sharesToUpsert[1].privacyLevel',
  message: 'Invalid input: expected number, received string',
};

export const fieldErrorSchema = component('FieldError', {
  field: z.string().meta({
    description: 'The bad field: a dotted path in the body, a query or path parameter, or a header',
    example: fieldErrorExample.field,
  }),
  message: z.string().meta({ description: 'What is wrong with it, for people', example: fieldErrorExample.message }),
});

/** RFC 9457 problem details, the body of every error (`application/problem+json`). */
export const problemSchema = component(
  'Problem',
  {
    type: z.string().meta({
      description:
        'Stable problem type, e.g. /problems/validation, /problems/forbidden; `GET /problems/{type}` explains it',
      example: '/problems/validation',
    }),
    title: z.string().meta({
      description: "The type's short summary, the same for every problem of the type",
      example: 'The request is not valid',
    }),
    status: z.number().int().min(400).max(599).meta({ description: 'The HTTP status of the answer', example: 400 }),
    detail: z
      .string()
      .optional()
      .meta({ description: 'What happened this time, for people', example: 'invalid request body' }),
    errors: z
      .array(fieldErrorSchema)
      .readonly()
      .optional()
      .meta({
        description: 'On a validation problem: every bad field',
        example: [fieldErrorExample],
      }),
    jobId: z
      .string()
      .optional()
      .meta({
        description:
          'On a conflict with a read-model rebuild that is running: its job, to follow at ' +
          '`GET /internal/read-models/rebuild/{jobId}`',
        example: '0f8e2d1c-3b4a-4c5d-8e6f-7a8b9c0d1e2f',
      }),
    traceId: z
      .string()
      .regex(/^[0-9a-f]{32}$/)
      .optional()
      .meta({
        description:
          "The request's W3C trace id, when it has a trace: the caller sent `traceparent`, or the " +
          'service exports traces. It finds the spans and the log lines of the request.',
        example: '4bf92f3577b34da6a3ce929d0e0e4736',
      }),
  },
  {
    example: {
      type: '/problems/validation',
      title: 'The request is not valid',
      status: 400,
      detail: 'invalid request body',
      errors: [fieldErrorExample],
    },
  },
);

/** RFC 9457 problem details. `type` is stable and is what clients (and tests) branch on. */
export type Problem = z.output<typeof problemSchema>;

/** POST /internal/directory/events. */
export const directoryFeedAnswerSchema = component(
  'DirectoryFeedAnswer',
  {
    accepted: count.meta({ description: 'How many events of the batch were appended', example: 2 }),
    position: z
      .string()
      .regex(/^[0-9]+$/)
      .meta({ description: 'Event-store position of the batch, as a decimal string', example: '42' }),
  },
  { example: { accepted: 2, position: '42' } },
);

/** GET /internal/read-models/digest. */
const digestExample = {
  generation: 1,
  checkpoint: '42',
  digest: '3f1c9a7be02d4c58a1e6f0b9d2c7e4a5b8f1d3c6e9a2b5c8d1e4f7a0b3c6d9e2',
  counts: { resources: 3, directory: 40, files: 1, apikeys: 1, applications: 3 },
};

export const readModelDigestSchema = component(
  'ReadModelDigest',
  {
    /** The read-model generation served (a blue/green rebuild moves to the next). */
    generation: z
      .number()
      .int()
      .nonnegative()
      .meta({ description: 'The read-model generation served; a blue/green rebuild moves to the next', example: 1 }),
    checkpoint: z.string().nullable().meta({
      description: 'The log position every read model has folded, as a decimal string; null before the first event',
      example: '42',
    }),
    digest: z.string().meta({
      description: 'A hash over the content of every read model: two processes, or a rebuild, agree when equal',
      example: digestExample.digest,
    }),
    counts: z
      .record(z.string(), count)
      .meta({ description: 'Rows per read model, by name', example: digestExample.counts }),
  },
  { example: digestExample },
);

/** POST /internal/read-models/rebuild. */
export const rebuildJobStartedSchema = component(
  'RebuildJobStarted',
  {
    jobId: z.string().meta({
      description: 'The job rebuilding the read models; follow it at `GET /internal/read-models/rebuild/{jobId}`',
      example: '0f8e2d1c-3b4a-4c5d-8e6f-7a8b9c0d1e2f',
    }),
  },
  { example: { jobId: '0f8e2d1c-3b4a-4c5d-8e6f-7a8b9c0d1e2f' } },
);

const position = z
  .string()
  .regex(/^[0-9]+$/)
  .meta({ description: 'A log position, as a decimal string', example: '42' });
const rebuildJobExample = {
  jobId: '0f8e2d1c-3b4a-4c5d-8e6f-7a8b9c0d1e2f',
  readModels: ['resources'],
  phase: 'done',
  progress: { position: '42', head: '42', eventsApplied: 40 },
  startedAt: '2026-01-02T03:04:05.000Z',
  finishedAt: '2026-01-02T03:04:07.500Z',
  outcome: 'succeeded',
  error: null,
} as const;

/** GET /internal/read-models/rebuild/{jobId}. */
export const rebuildJobSchema = component(
  'RebuildJob',
  {
    jobId: z.string().meta({ description: 'The job', example: rebuildJobExample.jobId }),
    readModels: z.array(z.string()).readonly().meta({
      description: 'The read models the job projects again from the whole log; the others are carried over as they are',
      example: rebuildJobExample.readModels,
    }),
    phase: z.enum(['queued', 'replaying', 'switching', 'done', 'failed']).meta({
      description:
        '`queued`: the new generation is being opened; `replaying`: the log is projected into it; ' +
        '`switching`: it is made the generation served; `done` or `failed`: the job has ended',
      example: 'done',
    }),
    progress: z
      .strictObject({
        position: position.meta({
          description: 'The log position every rebuilt read model has folded, as a decimal string',
          example: '42',
        }),
        head: position.meta({
          description: "The log's head when the replay began, as a decimal string: the replay ends there",
          example: '42',
        }),
        eventsApplied: count.meta({
          description: 'How many events of the log the replay has folded so far',
          example: 40,
        }),
      })
      .meta({ description: 'How far the replay got', example: rebuildJobExample.progress }),
    startedAt: isoTimestamp.meta({ description: 'When the job was asked', example: rebuildJobExample.startedAt }),
    finishedAt: isoTimestamp
      .nullable()
      .meta({ description: 'When the job ended; null while it runs', example: rebuildJobExample.finishedAt }),
    outcome: z.enum(['succeeded', 'failed']).nullable().meta({
      description: '`succeeded`: the new generation is served; `failed`: the served one stayed; null while it runs',
      example: 'succeeded',
    }),
    error: z.string().nullable().meta({
      description: 'Why the job failed, for people; null unless it failed',
      example: null,
    }),
  },
  { example: rebuildJobExample },
);

export const healthLiveSchema = component(
  'HealthLive',
  { status: z.literal('ok').meta({ description: 'The process is up and serves HTTP', example: 'ok' }) },
  { example: { status: 'ok' } },
);

export const healthStartedSchema = component(
  'HealthStarted',
  {
    status: z.enum(['started', 'starting']).meta({
      description: '`started` (200) once the read models have caught up and the API is served; `starting` (503) before',
      example: 'started',
    }),
  },
  { example: { status: 'started' } },
);

const probe = z.enum(['ok', 'unreachable']);
const readyExample = {
  status: 'ready',
  checks: { eventStore: 'ok', readStore: 'ok', cache: 'ok', projections: 'ok', parkedEvents: 'ok', process: 'ok' },
} as const;
export const healthReadySchema = component(
  'HealthReady',
  {
    status: z.enum(['ready', 'not ready']).meta({
      description: '`ready` (200) when every check is ok or degraded; `not ready` (503) otherwise',
      example: 'ready',
    }),
    checks: z
      .object({
        eventStore: probe.meta({ description: 'The event store answers', example: 'ok' }),
        readStore: probe.meta({ description: 'The read-model store answers', example: 'ok' }),
        cache: z.enum(['ok', 'degraded', 'unreachable']).meta({
          description: '"degraded": Redis is down; this process serves on its own cache and rate limits',
          example: 'ok',
        }),
        projections: z.string().meta({ description: '"ok", or why the projections stopped', example: 'ok' }),
        parkedEvents: z.string().meta({
          description:
            '"ok", or which read models deciding who sees what (resources, directory) have parked events: ' +
            '`GET /internal/read-models/{name}/parked`',
          example: 'ok',
        }),
        process: z.enum(['ok', 'draining']).meta({
          description: '"draining": a SIGTERM came; in-flight requests end, new ones belong elsewhere',
          example: 'ok',
        }),
      })
      .strict()
      .meta({ description: 'One line per dependency', example: readyExample.checks }),
  },
  { example: readyExample },
);
