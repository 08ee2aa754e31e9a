import { z } from 'zod';
import type { ApiKeyEvent } from './api-key-events';
import { secret } from '../domain/secret-fields';

/**
 * The current shape of each API-key event's data, as stored (see resource-event-schemas.ts). The
 * hashes of secrets are marked `secret`: the log keeps them, the audit never shows them.
 */
const id = z.number().int().positive();
const time = z.string().min(1);

export const API_KEY_EVENT_SCHEMAS = {
  ApiKeyCreated: z.strictObject({
    userId: id,
    id,
    keyId: z.string().min(1),
    name: z.string(),
    secretHash: secret(z.string().min(1)),
    createdAt: time,
    expiresAt: time,
    readOnly: z.boolean(),
    ratePerHour: z.number().int().positive().nullable(),
  }),
  ApiKeyRevoked: z.strictObject({ userId: id, id, revokedAt: time }),
  ApiKeyRotated: z.strictObject({
    userId: id,
    id,
    secretHash: secret(z.string().min(1)),
    previousSecretHash: secret(z.string().min(1)),
    previousSecretValidUntil: time,
    rotatedAt: time,
  }),
} as const satisfies Record<ApiKeyEvent['type'], z.ZodType>;
