import { z } from 'zod';
import { component, count, integer } from '../contract/primitives';

/**
 * The RESPONSE bodies of the API's own answers (the user, problems, the feed, operators, health).
 * The records the queries build (resources, privacy, applications) are stated in src/contract.
 * Both are the source of the OpenAPI document and of the contract test
 * (test/api/openapi.int.test.ts). Records are strict: an extra or a missing field fails.
 *
 * `component(id, shape)` (src/contract/primitives.ts) makes a record strict and names it as an
 * OpenAPI component, referenced wherever it is used.
 */

/** SPEC RemoveProjectResource: `{statusCode: integer}` carrying 200. */
export const removeProjectResourceSchema = component('StatusCode', { statusCode: integer });

/** GET /api/user/getcurrent (SPEC: "Response: not shown"; README fixes these six fields). */
export const currentUserSchema = component('CurrentUser', {
  id: integer,
  name: z.string(),
  status: z.enum(['active', 'inactive', 'banned']),
  credential: z.enum(['session', 'apiKey']),
  apiKeyId: integer.nullable(),
  impersonatorId: integer.nullable(),
});

export type CurrentUser = z.output<typeof currentUserSchema>;

export const fieldErrorSchema = component('FieldError', { field: z.string(), message: z.string() });

/** RFC 9457 problem details, the body of every error (`application/problem+json`). */
export const problemSchema = component('Problem', {
  type: z.string().meta({ description: 'Stable problem type, e.g. /problems/validation, /problems/forbidden' }),
  title: z.string(),
  status: z.number().int().min(400).max(599),
  detail: z.string().optional(),
  errors: z.array(fieldErrorSchema).readonly().optional(),
});

/** RFC 9457 problem details. `type` is stable and is what clients (and tests) branch on. */
export type Problem = z.output<typeof problemSchema>;

/** POST /internal/directory/events. */
export const directoryFeedAnswerSchema = component('DirectoryFeedAnswer', {
  accepted: count,
  position: z
    .string()
    .regex(/^[0-9]+$/)
    .meta({ description: 'Event-store position of the batch, as a decimal string' }),
});

/** GET /internal/read-models/digest and POST /internal/read-models/rebuild. */
export const readModelDigestSchema = component('ReadModelDigest', {
  /** The read-model generation served (a blue/green rebuild moves to the next). */
  generation: z.number().int().nonnegative(),
  checkpoint: z.string().nullable(),
  digest: z.string(),
  counts: z.record(z.string(), count),
});

export const healthLiveSchema = component('HealthLive', { status: z.literal('ok') });

const probe = z.enum(['ok', 'unreachable']);
export const healthReadySchema = component('HealthReady', {
  status: z.enum(['ready', 'not ready']),
  checks: z
    .object({
      eventStore: probe,
      readStore: probe,
      cache: z.enum(['ok', 'degraded', 'unreachable']).meta({
        description: '"degraded": Redis is down; this process serves on its own cache and rate limits',
      }),
      projections: z.string().meta({ description: '"ok", or why the projections stopped' }),
    })
    .strict(),
});
