import { z } from 'zod';
import { component } from '../contract/primitives';

/** GET /api/audit/integrity (issue 27): the head of the log's hash chain. */
export const integrityQuery = z.looseObject({}).superRefine((value, ctx) => {
  for (const key of Object.keys(value)) {
    ctx.addIssue({ code: 'custom', path: [key], message: 'unknown query parameter' });
  }
});

export const integrityHeadSchema = component('IntegrityHead', {
  kept: z.boolean().meta({
    description:
      'Whether this log keeps a hash chain: the embedded store does; on EventStoreDB see docs/architecture.md',
  }),
  position: z
    .string()
    .regex(/^[0-9]+$/)
    .nullable()
    .meta({ description: 'Global position of the newest hashed event, as a decimal string; null when none is hashed' }),
  hash: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .nullable()
    .meta({
      description:
        "SHA-256 (hex) over that event's stored bytes and the previous event's hash: record it to check the log later",
    }),
});
