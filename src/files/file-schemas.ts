import { z } from 'zod';

export const uploadQuery = z.object({
  isBigFile: z
    .enum(['true', 'false', 'True', 'False', '1', '0'])
    .optional()
    .transform((v) => v !== undefined && ['true', 'True', '1'].includes(v))
    .meta({
      description: 'Raise the ceiling from UPLOAD_MAX_MB (3) to UPLOAD_BIG_MAX_MB (100) MiB; default false',
      default: 'false',
      example: 'false',
    }),
});

export const downloadQuery = z.object({
  path: z.string().min(1).max(512).meta({
    description: 'The path the upload answered',
    example: 'resource_files/Qx3vN8wz2LkP5rT7yB1mHg/notes.txt',
  }),
});

/** The upload's answer is a JSON string holding the stored path (docs/api.md "Files"). */
export const uploadAnswerSchema = z.string().meta({
  description: 'The stored path, `folder/<random id>/<file name>`',
  example: 'resource_files/Qx3vN8wz2LkP5rT7yB1mHg/notes.txt',
});
