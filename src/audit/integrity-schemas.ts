import { z } from 'zod';
import { component } from '../contract/primitives';

/** GET /api/audit/integrity: the head of the log's hash chain. */
export const integrityQuery = z.looseObject({}).superRefine((value, ctx) => {
  for (const key of Object.keys(value)) {
    ctx.addIssue({ code: 'custom', path: [key], message: 'unknown query parameter' });
  }
});

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
  },
  { example: headExample },
);
