import { z } from 'zod';
import type { ApiKeyEvent } from './api-key-events';

/** The current shape of each API-key event's data, as stored (see resource-event-schemas.ts). */
const id = z.number().int().positive();
const time = z.string().min(1);

export const API_KEY_EVENT_SCHEMAS = {
  ApiKeyCreated: z.strictObject({
    userId: id,
    id,
    keyId: z.string().min(1),
    name: z.string(),
    secretHash: z.string().min(1),
    createdAt: time,
    expiresAt: time,
  }),
  ApiKeyRevoked: z.strictObject({ userId: id, id, revokedAt: time }),
  ApiKeyRotated: z.strictObject({
    userId: id,
    id,
    secretHash: z.string().min(1),
    previousSecretHash: z.string().min(1),
    previousSecretValidUntil: time,
    rotatedAt: time,
  }),
} as const satisfies Record<ApiKeyEvent['type'], z.ZodType>;
