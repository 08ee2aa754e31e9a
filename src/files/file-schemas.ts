import { z } from 'zod';

export const uploadQuery = z.object({
  isBigFile: z
    .enum(['true', 'false', 'True', 'False', '1', '0'])
    .optional()
    .transform((v) => v !== undefined && ['true', 'True', '1'].includes(v)),
});

export const downloadQuery = z.object({
  path: z.string().min(1).max(512),
});

/** SPEC: the answer is a JSON string holding the stored path. */
export const uploadAnswerSchema = z.string().describe('The stored path, `folder/<random id>/<file name>`');
