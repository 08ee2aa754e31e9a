import { z } from 'zod';
import { LEVEL_NAMES, PRIVACY_LEVELS, isPrivacyLevel } from './access/privacy-policy';

const first = PRIVACY_LEVELS[0]?.level ?? 1;
const last = PRIVACY_LEVELS.at(-1)?.level ?? first;

/**
 * A privacy level as the log, the records and the audit hold it: any row of the policy table, one
 * no longer offered included, so that the events of old logs still fit. The range is what the
 * OpenAPI document shows; the refinement refuses a number between two levels.
 */
export const privacyLevelSchema = z
  .number()
  .int()
  .min(first)
  .max(last)
  .refine((value): boolean => isPrivacyLevel(value), {
    message: `must be one of ${PRIVACY_LEVELS.map((row) => row.level).join(', ')}`,
  })
  .meta({ description: LEVEL_NAMES });
