import type { AppContext } from './app-context';
import { routeGroup } from '../api/route-declaration';
import { notFound, validationError } from '../domain/errors';
import { systemActor } from '../domain/event';
import type { ParkedEvent } from '../projections/read-model-projection';
import type { ReadModelName } from './read-model-list';
import { OPERATOR_NAME_LOCAL } from '../api/middleware/internal-token';
import {
  OPERATOR_DECISIONS_STREAM,
  parkedEventDecision,
  type DecidingOperator,
  type ParkedEventDecisionType,
} from './parked-event-decisions';
import {
  OPERATOR_HEADER,
  operatorName,
  parkedDecisionSchema,
  parkedEventParams,
  parkedListSchema,
  parkedParams,
  parkedEventJson,
} from './parked-event-schemas';

const answerOf = parkedEventJson;

/** Who decides: the named operator whose token the request carried, else the X-Operator header as given. */
const operatorOf = (named: unknown, header: string | undefined): DecidingOperator => {
  if (typeof named === 'string') return { credential: 'operatorToken', name: named };
  if (header === undefined) return { credential: 'directoryToken', name: null };
  const parsed = operatorName.safeParse(header);
  if (!parsed.success) throw validationError('X-Operator', 'a name of 1 to 100 printable characters');
  return { credential: 'directoryToken', name: parsed.data };
};

async function parkedOf(ctx: AppContext, name: ReadModelName, position: bigint): Promise<ParkedEvent> {
  const parked = (await ctx.readSide.parked())[name].find((event) => event.position === position);
  if (!parked) throw notFound(`read model ${name} has no event parked at position ${position}`);
  return parked;
}

/**
 * Recorded before it is carried out, as an audit read is: a decision that cannot be recorded is
 * not made. The decision names the operator as the credential allows (see parked-event-decisions.ts).
 */
async function recordDecision(
  ctx: AppContext,
  type: ParkedEventDecisionType,
  parked: ParkedEvent,
  operator: DecidingOperator,
  correlationId: string,
): Promise<void> {
  const data = {
    readModel: parked.readModel,
    position: parked.position.toString(),
    streamId: parked.streamId,
    eventType: parked.type,
    operator,
  };
  const metadata = { actor: systemActor, correlationId, at: ctx.clock().toISOString() };
  await ctx.eventStore.appendToStream(OPERATOR_DECISIONS_STREAM, [parkedEventDecision(type, data, metadata)], 'any');
}

const decisionDescription =
  'The decision is appended to the log first (stream `operator-decisions`, shown by `GET /api/audit/events`), with ' +
  'who made it: a named operator whose own token (OPERATOR_TOKENS, `Authorization: Bearer`) the request carried, ' +
  'by that name; else the directory token and, when the request names one in the `X-Operator` header (1 to 100 ' +
  'printable characters, recorded as given, not verified), the person. ';

/**
 * Events a projection parked after failing on them PROJECTION_PARK_AFTER times: listed, and retried
 * or skipped by an operator (docs/operations.md "Parked events").
 */
export const PARKED_EVENT_ROUTES = routeGroup<AppContext>({ tag: 'internal', access: 'internal' }, (operator) => [
  operator.get('/internal/read-models/{name}/parked', 'listParkedEvents', {
    summary: 'The events a read model parked: its projection failed on each and went on with the next',
    request: { params: parkedParams },
    answers: { 200: { description: 'The parked events, in log order', json: parkedListSchema } },
    errors: [400, 401],
    handle:
      (ctx) =>
      async ({ params }) =>
        (await ctx.readSide.parked())[params.name].map((event) => answerOf(event, params.name)),
  }),
  operator.post('/internal/read-models/{name}/parked/{position}/retry', 'retryParkedEvent', {
    summary: 'Fold a parked event again now: applied, it is no longer parked; failing, it stays with the new error',
    description:
      decisionDescription +
      'Where the read model already holds something newer than the event, its position guards leave that as it is: ' +
      'rebuilding the read model folds the event in its place.',
    request: { params: parkedEventParams },
    answers: { 200: { description: 'What the retry came to', json: parkedDecisionSchema } },
    errors: [400, 401, 404],
    handle:
      (ctx) =>
      async ({ params, req, res, correlationId }) => {
        const operator = operatorOf(res.locals[OPERATOR_NAME_LOCAL], req.header(OPERATOR_HEADER));
        const position = BigInt(params.position);
        const parked = await parkedOf(ctx, params.name, position);
        await recordDecision(ctx, 'ParkedEventRetried', parked, operator, correlationId);
        const retry = await ctx.readSide.current.runners[params.name].retryParked(position, ctx.clock());
        // Unparked meanwhile (another operator's skip or retry): nothing left to do.
        if (retry.outcome === 'unknown') throw notFound(`read model ${params.name} has no event parked there now`);
        const base = { readModel: params.name, position: params.position };
        if (retry.outcome === 'applied') return { ...base, outcome: 'applied' as const };
        return { ...base, outcome: 'failed' as const, parked: answerOf(retry.parked, params.name) };
      },
  }),
  operator.post('/internal/read-models/{name}/parked/{position}/skip', 'skipParkedEvent', {
    summary: 'Give a parked event up: it is no longer parked and stays unapplied',
    description: decisionDescription,
    request: { params: parkedEventParams },
    answers: { 200: { description: 'Skipped', json: parkedDecisionSchema } },
    errors: [400, 401, 404],
    handle:
      (ctx) =>
      async ({ params, req, res, correlationId }) => {
        const operator = operatorOf(res.locals[OPERATOR_NAME_LOCAL], req.header(OPERATOR_HEADER));
        const position = BigInt(params.position);
        const parked = await parkedOf(ctx, params.name, position);
        await recordDecision(ctx, 'ParkedEventSkipped', parked, operator, correlationId);
        const runner = ctx.readSide.current.runners[params.name];
        if (!(await runner.projection.store.unpark(runner.name, position)))
          throw notFound(`read model ${params.name} has no event parked there now`);
        return { readModel: params.name, position: params.position, outcome: 'skipped' as const };
      },
  }),
]);
