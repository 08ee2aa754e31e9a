import { z } from 'zod';
import { component, count, isoTimestamp } from '../contract/primitives';
import { READ_MODEL_NAMES, type ReadModelName } from './read-model-list';
import type { ParkedEvent } from '../projections/read-model-projection';

const readModel = z.enum(READ_MODEL_NAMES).meta({ description: 'The read model', example: 'resources' });
const position = z
  .string()
  .regex(/^[0-9]{1,30}$/, 'a position in the log: decimal digits')
  .meta({ description: "The parked event's position in the log, as a decimal string", example: '1234' });

export const parkedParams = z.object({ name: readModel });
export const parkedEventParams = z.object({ name: readModel, position });

/**
 * Who decides, when a person is to be named: the operator credential (the directory's token) names
 * nobody. Recorded as given with the decision; not verified.
 */
export const OPERATOR_HEADER = 'x-operator';
export const operatorName = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[^\p{Cc}]+$/u, 'printable characters only');

const parkedExample = {
  readModel: 'resources',
  position: '1234',
  streamId: 'resource-42',
  type: 'ResourceUpdated',
  error: "Cannot read properties of undefined (reading 'level')",
  failures: 5,
  firstFailedAt: '2026-11-28T10:00:00.000Z',
  lastFailedAt: '2026-11-28T10:07:30.000Z',
} as const;

export const parkedEventSchema = component(
  'ParkedEvent',
  {
    readModel,
    position,
    streamId: z.string().meta({ description: 'The stream the event belongs to', example: 'resource-42' }),
    type: z.string().meta({ description: 'The event type', example: 'ResourceUpdated' }),
    error: z.string().meta({
      description: 'The message of the last failure (1,000 characters at most)',
      example: parkedExample.error,
    }),
    failures: count.meta({ description: 'How many times the projection failed on it', example: 5 }),
    firstFailedAt: isoTimestamp.meta({ description: 'The first failure', example: parkedExample.firstFailedAt }),
    lastFailedAt: isoTimestamp.meta({ description: 'The last failure', example: parkedExample.lastFailedAt }),
  },
  { example: parkedExample },
);

export const parkedListSchema = z
  .array(parkedEventSchema)
  .meta({ id: 'ParkedEventList', description: 'The parked events, in log order', example: [parkedExample] });

export const parkedDecisionSchema = component(
  'ParkedEventDecision',
  {
    readModel,
    position,
    outcome: z.enum(['applied', 'failed', 'skipped']).meta({
      description:
        '`applied`: the retry folded it and it is no longer parked; `failed`: it failed again and stays parked ' +
        '(`parked` says with which error); `skipped`: no longer parked, never applied',
      example: 'applied',
    }),
    parked: parkedEventSchema
      .optional()
      .meta({ description: 'With `failed`: the event as it stays parked, with the new error' }),
  },
  { example: { readModel: 'resources', position: '1234', outcome: 'applied' } },
);

/** A parked event as the operator routes and the console answer it: its position a decimal string. */
export const parkedEventJson = (event: ParkedEvent, readModel: ReadModelName) => ({
  ...event,
  readModel,
  position: event.position.toString(),
});
