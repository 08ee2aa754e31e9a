import type { Decider } from '../../src/domain/decider';

/**
 * Emmett's DeciderSpecification: `given(past events).when(command).then(expected events)`, or
 * `.thenThrows(ErrorType, check)`. The command is decided on the state folded from the given
 * events. `then` also takes a callback on the events and the state after them, for the cases that
 * look at part of an event or at what the decision left behind. Errors are checked by their type
 * and what the check looks at (a kind, field paths), never by their message.
 */
export type Outcome<State, Event> = { readonly events: Event[]; readonly state: State };

type ErrorType<E extends Error> = abstract new (...args: never[]) => E;
/** A check returning false fails the test; one asserting with expect may return nothing. */
type ErrorCheck<E> = (error: E) => boolean | void;

export type Then<State, Event> = {
  then(expected: readonly Event[] | ((outcome: Outcome<State, Event>) => void)): void;
  thenNothingHappened(): void;
  thenThrows<E extends Error>(type: ErrorType<E>, check?: ErrorCheck<E>): void;
};

export const DeciderSpecification = {
  for<State, Command, Event>(decider: Decider<State, Command, Event>) {
    return (given: readonly Event[] = []) => {
      const state = given.reduce(decider.evolve, decider.initialState());
      return {
        when(command: Command): Then<State, Event> {
          const decide = (): Event[] => decider.decide(command, state);
          return {
            then(expected) {
              const events = decide();
              if (typeof expected === 'function') expected({ events, state: events.reduce(decider.evolve, state) });
              else expect(events).toEqual(expected);
            },
            thenNothingHappened() {
              expect(decide()).toEqual([]);
            },
            thenThrows(type, check) {
              let events: Event[];
              try {
                events = decide();
              } catch (error) {
                expect(error).toBeInstanceOf(type);
                if (check?.(error as never) === false)
                  throw new Error(`the ${type.name} thrown did not pass the check`);
                return;
              }
              throw new Error(`expected a ${type.name}, got the events ${JSON.stringify(events)}`);
            },
          };
        },
      };
    };
  },
};
