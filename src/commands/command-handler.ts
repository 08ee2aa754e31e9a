import type { Decider } from '../domain/decider';
import type { EventMetadata } from '../domain/event';
import type { EventStore, Write } from '../ports/event-store';
import { WrongExpectedRevisionError } from '../ports/event-store';
import type { Backoff } from './contention';
import { contentionExhausted, jitteredBackoff } from './contention';
import { claimedAppend } from './idempotent-attempt';
import type { Span } from '@opentelemetry/api';
import { inSpan } from '../observability/tracing';

export type EventData = { readonly type: string; readonly data: unknown };

export const MAX_ATTEMPTS = 10;

export type CommandOutcome<State, Event> = {
  /** Global position of the last appended event; undefined when the decision appended nothing. */
  readonly position: bigint | undefined;
  /** Where the events landed; undefined when the decision appended nothing. */
  readonly write: Write | undefined;
  readonly events: Event[];
  /** The state after the events. */
  readonly state: State;
};

/**
 * The one way a command runs: read the stream once, fold it from the decider's initial state,
 * let `commandFor` build the command from that state (loading whatever facts it needs: the
 * resource's project, the caller, the directory), decide, and append at the revision read. When
 * another writer appended in between, the whole load, build, decide, append runs again on the
 * new state, after a jittered wait; when the attempts run out, a DomainError 'unavailable' (503).
 * A stream named by an id just issued (`newStream`) is not read on the first attempt: nobody else
 * holds the id, so its stream cannot exist yet, and the append's `no_stream` is the guard.
 */
export async function handleCommand<State, Command, Event extends EventData>(
  store: EventStore,
  streamId: string,
  decider: Decider<State, Command, Event>,
  commandFor: (state: State) => Command | Promise<Command>,
  stamp: EventMetadata,
  options: { readonly backoff?: Backoff; readonly newStream?: boolean } = {},
): Promise<CommandOutcome<State, Event>> {
  const { backoff = jitteredBackoff, newStream = false } = options;
  return inSpan('command', { stream: streamId }, (span) =>
    runCommand(store, streamId, decider, commandFor, stamp, backoff, newStream, span),
  );
}

async function runCommand<State, Command, Event extends EventData>(
  store: EventStore,
  streamId: string,
  decider: Decider<State, Command, Event>,
  commandFor: (state: State) => Command | Promise<Command>,
  stamp: EventMetadata,
  backoff: Backoff,
  newStream: boolean,
  span: Span | undefined,
): Promise<CommandOutcome<State, Event>> {
  for (let attempt = 1; ; attempt++) {
    const history = newStream && attempt === 1 ? [] : await store.readStream(streamId);
    // The stream holds what this decider's events were appended as: its own events.
    const state = history.reduce(
      (current, event) => decider.evolve(current, event as unknown as Event),
      decider.initialState(),
    );
    const command = await commandFor(state);
    const events = decider.decide(command, state);
    const after = events.reduce(decider.evolve, state);
    if (span) {
      const type = (command as { type?: unknown }).type;
      if (typeof type === 'string') span.updateName(`command ${type}`);
      span.setAttributes({ attempt, events: events.length, 'stream.revision': history.length });
    }
    if (events.length === 0) return { position: undefined, write: undefined, events, state: after };
    const last = history.at(-1);
    try {
      const appended = events.map((e) => ({ type: e.type, data: e.data, metadata: stamp }));
      const expected = last ? last.revision : 'no_stream';
      const claimed = claimedAppend();
      const result = await inSpan(
        'append',
        { stream: streamId, events: events.length, 'idempotency.claimed': claimed !== undefined },
        async (appendSpan) => {
          const done = await (claimed
            ? store.appendToStream(streamId, appended, expected, claimed)
            : store.appendToStream(streamId, appended, expected));
          appendSpan?.setAttribute('position', Number(done.position));
          return done;
        },
      );
      span?.setAttribute('position', Number(result.position));
      const firstRevision = result.nextExpectedRevision - BigInt(events.length) + 1n;
      return {
        position: result.position,
        write: { position: result.position, stream: { id: streamId, firstRevision } },
        events,
        state: after,
      };
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      if (attempt >= MAX_ATTEMPTS) throw contentionExhausted(streamId);
      await backoff(attempt);
    }
  }
}
