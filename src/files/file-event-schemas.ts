import { z } from 'zod';
import type { FileEvent } from './file-events';

/** The current shape of each upload event's data, as stored (see resource-event-schemas.ts). */
export const FILE_EVENT_SCHEMAS = {
  FileUploaded: z.strictObject({
    path: z.string().min(1),
    name: z.string().min(1),
    size: z.number().int().nonnegative(),
    contentType: z.string().min(1),
    uploadedBy: z.number().int().positive(),
    at: z.string().min(1),
  }),
  FileDeleted: z.strictObject({ path: z.string().min(1), reason: z.enum(['unreferenced', 'orphaned']) }),
} as const satisfies Record<FileEvent['type'], z.ZodType>;
