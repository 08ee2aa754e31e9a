/**
 * Emmett's Decider: how one aggregate decides and remembers. `decide` turns a command and the
 * current state into the events that record the decision (or throws a DomainError); `evolve`
 * folds one event into the state; `initialState` is the state of a stream with no events. All
 * three are pure: whatever a decision needs from outside (the clock, directory facts) arrives
 * in the command, so the command handler can load it, retry it and test it without the domain.
 */
export type Decider<State, Command, Event> = {
  readonly decide: (command: Command, state: State) => Event[];
  readonly evolve: (state: State, event: Event) => State;
  readonly initialState: () => State;
};
