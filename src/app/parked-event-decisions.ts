import { z } from 'zod';
import type { Event } from '../domain/event';

/** Where an operator's decisions on parked events are appended: the audit log reads them there. */
export const OPERATOR_DECISIONS_STREAM = 'operator-decisions';

/**
 * Who decided. With the directory's token, which names nobody, `name` is what the optional
 * `X-Operator` header said, as the caller gave it (not verified), null when absent. With a named
 * operator's own token (OPERATOR_TOKENS), `name` is the name that token was configured under.
 */
const operatorSchema = z.union([
  z.strictObject({
    credential: z.literal('directoryToken'),
    name: z.string().min(1).max(100).nullable(),
  }),
  z.strictObject({
    credential: z.literal('operatorToken'),
    name: z.string().min(1).max(100),
  }),
]);

export type DecidingOperator = z.infer<typeof operatorSchema>;

const decisionSchema = z.strictObject({
  readModel: z.string().min(1),
  /** The parked event's position in the log, as a decimal string (positions outgrow JSON numbers). */
  position: z.string().regex(/^[0-9]+$/),
  streamId: z.string(),
  eventType: z.string(),
  operator: operatorSchema,
});

export type ParkedEventDecision = z.infer<typeof decisionSchema>;

/** The decisions' schemas, by event type, for the event catalog. */
export const PARKED_DECISION_EVENT_SCHEMAS = {
  ParkedEventRetried: decisionSchema,
  ParkedEventSkipped: decisionSchema,
} as const;

export type ParkedEventDecisionType = keyof typeof PARKED_DECISION_EVENT_SCHEMAS;

export const parkedEventDecision = (
  type: ParkedEventDecisionType,
  data: ParkedEventDecision,
  metadata: Event['metadata'],
): Event<ParkedEventDecisionType, ParkedEventDecision> => ({ type, data, metadata });
