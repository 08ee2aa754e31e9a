import { z } from 'zod';

/**
 * The audited record of an erasure: an operator destroyed this person's key, so every personal
 * field sealed under it reads as erased from then on. The stream is the person's.
 */
export const PERSONAL_DATA_EVENT_SCHEMAS = {
  PersonalDataErased: z.strictObject({
    userId: z.number().int().nonnegative(),
    /** False when the person had no key (nothing was ever sealed for them): recorded all the same. */
    keyDestroyed: z.boolean(),
  }),
};

export const personalDataStreamId = (userId: number): string => `personal-data-${userId}`;
