import { z } from 'zod';
import { component, count, integer, pathId } from '../contract/primitives';

const timestamp = z.string().meta({ description: 'ISO 8601 UTC timestamp' });

const readOnlyField = z
  .boolean()
  .meta({ description: 'Refused every route that changes state (a rotation keeps it)', example: true });
const ratePerHourField = integer.meta({
  description: "Its hourly quota, never above the service's RATE_LIMIT_PER_HOUR (a rotation keeps it)",
  example: 100,
});

/** POST /api/apikey (docs/api.md): the name is trimmed, then 1–100 characters; a lifetime of 1–180 whole days. */
export const createApiKeyBody = z
  .strictObject({
    name: z
      .string()
      .trim()
      .min(1, 'must not be empty')
      .max(100, 'must be at most 100 characters')
      .meta({ description: 'Trimmed, 1 to 100 characters', example: 'ci' }),
    expiresInDays: integer
      .min(1)
      .max(180)
      .optional()
      .meta({ description: 'Lifetime in days, 1 to 180; default 90', default: 90, example: 30 }),
    readOnly: z.boolean().optional().meta({
      description: 'A read-only key is refused (403) every route that changes state; default false',
      default: false,
      example: true,
    }),
    ratePerHour: integer.min(1).optional().meta({
      description:
        "The key's own hourly quota, 1 to the service's RATE_LIMIT_PER_HOUR (above it: 400); default that limit",
      example: 100,
    }),
  })
  .meta({ id: 'CreateApiKeyRequest', example: { name: 'ci', expiresInDays: 30, readOnly: true, ratePerHour: 100 } });

/** POST /api/apikey/{id}/rotate: how long the previous secret keeps working. */
export const rotateApiKeyBody = z
  .object({
    graceHours: integer
      .min(0)
      .max(168)
      .optional()
      .meta({ description: 'Hours the previous secret keeps working, 0 to 168; default 24', default: 24, example: 24 }),
  })
  .meta({ id: 'RotateApiKeyRequest', example: { graceHours: 24 } });

export const apiKeyPathParams = z.object({
  id: pathId.meta({ description: "The key's `id`, as the creation answer and the list give it", example: '1' }),
});

/** The creation (and rotation) answer: the only one that carries the plaintext `key`. */
export const issuedApiKeySchema = component(
  'IssuedApiKey',
  {
    id: integer.meta({ description: "The key's id, for revocation and rotation", example: 1 }),
    key: z
      .string()
      .optional()
      .meta({
        description:
          'The full key, `keyId.secret`; shown once, never retrievable again. Absent from ' +
          'the replay of a request repeated with its Idempotency-Key ' +
          '(`Idempotent-Replayed: true`): only a one-way hash of a secret is ever stored',
        example: 'svc_live_GPH3UedXZy3cNgLS.6PHnn0rVK2zCe1VFyZb1GePPaP4ag6DJuLzhFEypCze0ic5KJ',
      }),
    keyId: z.string().meta({ description: 'The public part, `svc_live_...`', example: 'svc_live_GPH3UedXZy3cNgLS' }),
    name: z.string().meta({ description: 'The name given at creation', example: 'ci' }),
    createdAt: timestamp.meta({
      description: 'When the key was created (a rotation keeps it)',
      example: '2025-03-01T10:00:00.000Z',
    }),
    expiresAt: timestamp.meta({
      description: 'When the key stops working (a rotation keeps it)',
      example: '2025-03-31T10:00:00.000Z',
    }),
    readOnly: readOnlyField,
    ratePerHour: ratePerHourField,
    previousValidUntil: timestamp.optional().meta({
      description:
        'Rotation only: until when the secret this rotation replaced keeps working (now, with `graceHours` 0)',
      example: '2025-03-02T10:00:00.000Z',
    }),
    endedGraceUntil: timestamp.optional().meta({
      description:
        'Rotation only, inside the grace of an earlier rotation: one previous secret is ' +
        'kept, so the secret before it stopped working at this rotation instead of at ' +
        'this time',
      example: '2025-03-01T22:00:00.000Z',
    }),
  },
  {
    example: {
      id: 1,
      key: 'svc_live_GPH3UedXZy3cNgLS.6PHnn0rVK2zCe1VFyZb1GePPaP4ag6DJuLzhFEypCze0ic5KJ',
      keyId: 'svc_live_GPH3UedXZy3cNgLS',
      name: 'ci',
      createdAt: '2025-03-01T10:00:00.000Z',
      expiresAt: '2025-03-31T10:00:00.000Z',
      readOnly: true,
      ratePerHour: 100,
    },
  },
);

const listedKeyExample = {
  id: 1,
  keyId: 'svc_live_GPH3UedXZy3cNgLS',
  name: 'ci',
  createdAt: '2025-03-01T10:00:00.000Z',
  expiresAt: '2025-03-31T10:00:00.000Z',
  lastUsedAt: '2025-03-01T12:04:00.000Z',
  isExpired: false,
  readOnly: true,
  ratePerHour: 100,
  usage: { lastHour: 12, lastDay: 240 },
  previousValidUntil: '2025-03-02T10:00:00.000Z',
};

export const apiKeyListItemSchema = component(
  'ApiKey',
  {
    id: integer.meta({ description: "The key's id, for revocation and rotation", example: 1 }),
    keyId: z.string().meta({ description: 'The public part, `svc_live_...`', example: 'svc_live_GPH3UedXZy3cNgLS' }),
    name: z.string().meta({ description: 'The name given at creation', example: 'ci' }),
    createdAt: timestamp.meta({ description: 'When the key was created', example: '2025-03-01T10:00:00.000Z' }),
    expiresAt: timestamp.meta({ description: 'When the key stops working', example: '2025-03-31T10:00:00.000Z' }),
    lastUsedAt: timestamp.nullable().meta({
      description: 'Its last use, recorded at most once a minute, so it may lag; null when never used',
      example: '2025-03-01T12:04:00.000Z',
    }),
    isExpired: z
      .boolean()
      .meta({ description: 'Whether `expiresAt` has passed: the key no longer works', example: false }),
    readOnly: readOnlyField,
    ratePerHour: ratePerHourField,
    usage: z
      .strictObject({
        lastHour: count.meta({ description: 'Requests admitted in the last hour', example: 12 }),
        lastDay: count.meta({ description: 'Requests admitted in the last 24 hours', example: 240 }),
      })
      .meta({
        description:
          'Requests made with the key, counted in hourly buckets (the oldest hour of each window in ' +
          "proportion to the part it covers); shared by every process on Redis, each process's own without it",
        example: { lastHour: 12, lastDay: 240 },
      }),
    previousValidUntil: timestamp.optional().meta({
      description:
        'While the secret a rotation replaced still works: until when. Absent when there is no such secret ' +
        '(never rotated, or its grace is over)',
      example: '2025-03-02T10:00:00.000Z',
    }),
  },
  { example: listedKeyExample },
);

export const apiKeyListSchema = z
  .array(apiKeyListItemSchema)
  .meta({ id: 'ApiKeyList', description: "The caller's keys, newest first", example: [listedKeyExample] });
