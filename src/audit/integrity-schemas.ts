import { z } from 'zod';
import { component } from '../contract/primitives';
import { ANCHOR_PATTERN } from './log-verification';

/**
 * GET /api/audit/integrity: the head of the log's hash chain and, when asked, the result of
 * recomputing it. The query is strict, as every audit query is: a misspelt `verify` must not
 * silently answer the head alone.
 */
const integrityQueryShape = {
  verify: z
    .enum(['true', 'false'])
    .optional()
    .meta({
      description:
        '`true`: also recompute the whole chain from the stored bytes and answer `verification`; ' +
        'default `false`, absent: the head alone',
      default: 'false',
      example: 'true',
    }),
  anchor: z
    .string()
    .regex(ANCHOR_PATTERN, 'must be <position>:<hash>, the head this API answered (hash: 64 lower-case hex digits)')
    .optional()
    .meta({
      description:
        'A head recorded earlier, `<position>:<hash>`: also check that the log still passes through it ' +
        '(implies `verify=true`; answers `anchor`). Absent: no anchor is checked',
      example: '42:9b2e4c6f1a3d5b7e9c0f2a4d6b8e0c1f3a5d7b9e1c3f5a7d9b0e2c4f6a8d0b1e',
    }),
};

export const integrityQuery = z.looseObject(integrityQueryShape).superRefine((value, ctx) => {
  for (const key of Object.keys(value)) {
    if (!(key in integrityQueryShape))
      ctx.addIssue({ code: 'custom', path: [key], message: 'unknown query parameter' });
  }
});

const decimal = z.string().regex(/^[0-9]+$/);

const verificationExample = {
  events: 42,
  unchained: 0,
  chainedFrom: '1',
  intact: true,
  firstMismatch: null,
  checkedAt: '2025-03-02T12:00:00.000Z',
};

const mismatchExample = {
  position: '17',
  streamId: 'resource-1',
  revision: '0',
  type: 'ResourceCreated',
  problem: 'hash' as const,
};

export const integrityVerificationSchema = component(
  'IntegrityVerification',
  {
    events: z.number().int().nonnegative().meta({ description: 'Events read', example: 42 }),
    unchained: z.number().int().nonnegative().meta({
      description: 'Events before the chain began (written before the log kept hashes): not covered by it',
      example: 0,
    }),
    chainedFrom: decimal.nullable().meta({
      description: 'Global position of the first hashed event, as a decimal string; null when none is',
      example: '1',
    }),
    intact: z.boolean().meta({
      description: 'Every hashed event matches its stored bytes and the hash before it (`firstMismatch` null)',
      example: true,
    }),
    firstMismatch: component(
      'ChainMismatch',
      {
        position: decimal.meta({ description: 'Global position of the event, as a decimal string', example: '17' }),
        streamId: z.string().meta({ description: 'Its stream', example: 'resource-1' }),
        revision: decimal.meta({ description: 'Its position inside its stream, as a decimal string', example: '0' }),
        type: z.string().meta({ description: 'Its type', example: 'ResourceCreated' }),
        problem: z.enum(['hash', 'missing']).meta({
          description:
            '`hash`: its stored bytes or its link do not give its hash (edited, or an event before it removed); ' +
            '`missing`: it has no hash although the chain began before it',
          example: 'hash',
        }),
      },
      { description: 'The first event whose hash does not hold', example: mismatchExample },
    )
      .nullable()
      .meta({ description: 'The first event that does not match; null when the chain holds', example: null }),
    checkedAt: z.string().meta({
      description:
        'When the run began (ISO 8601): it covers the log as it stood then. Requests that arrive while a run is ' +
        'under way share its result',
      example: verificationExample.checkedAt,
    }),
  },
  { description: 'The result of recomputing the whole chain', example: verificationExample },
);

const headExample = {
  kept: true,
  position: '42',
  hash: '9b2e4c6f1a3d5b7e9c0f2a4d6b8e0c1f3a5d7b9e1c3f5a7d9b0e2c4f6a8d0b1e',
};

export const integrityHeadSchema = component(
  'IntegrityHead',
  {
    kept: z.boolean().meta({
      description:
        'Whether this log keeps a hash chain: the embedded store does; on EventStoreDB see docs/architecture.md',
      example: true,
    }),
    position: z
      .string()
      .regex(/^[0-9]+$/)
      .nullable()
      .meta({
        description: 'Global position of the newest hashed event, as a decimal string; null when none is hashed',
        example: headExample.position,
      }),
    hash: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .nullable()
      .meta({
        description:
          "SHA-256 (hex) over that event's stored bytes and the previous event's hash: " +
          'record it to check the log later',
        example: headExample.hash,
      }),
    anchor: component(
      'ChainAnchorCheck',
      {
        position: decimal.meta({ description: "The anchor's position, as given", example: headExample.position }),
        hash: z.string().meta({ description: "The anchor's hash, as given", example: headExample.hash }),
        holds: z.boolean().meta({
          description:
            'The whole chain holds and the event at that position carries that hash: nothing up to it was ' +
            'changed, even with the hashes computed again after an edit',
          example: true,
        }),
      },
      { description: 'With `anchor`: whether the log still passes through it' },
    )
      .optional()
      .meta({ description: 'With `anchor` only' }),
    verification: integrityVerificationSchema
      .nullable()
      .optional()
      .meta({
        description:
          'With `verify=true`: the result of recomputing the chain; null when the log keeps none (`kept` false). ' +
          'Absent without `verify=true`',
        example: verificationExample,
      }),
  },
  { example: { ...headExample, verification: verificationExample } },
);
