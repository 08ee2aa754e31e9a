/**
 * Every event and command is a readonly `{type, data, metadata}` record whose
 * TypeScript alias equals its `type` string (Emmett's convention): events in the past tense,
 * commands in the imperative.
 */
export type Actor = {
  readonly userId: number;
  readonly credential: 'session' | 'apiKey' | 'system';
  readonly apiKeyId?: number;
  readonly impersonatorId?: number;
};

/** Auditors replay history from this: who, through which credential, when, and under which request. */
export type EventMetadata = {
  readonly actor: Actor;
  readonly correlationId: string;
  readonly at: string; // ISO 8601
  /**
   * The client's address, as TRUST_PROXY lets the service know it (docs/operations.md "Configuration"), on
   * what an HTTP request appended; absent on what operator tools and the service itself append.
   */
  readonly clientAddress?: string;
  /**
   * The W3C trace context of the request that appended it, when it had one: a projector, in this
   * process or another, continues that trace when it folds the event. Not a secret: ids only.
   */
  readonly traceparent?: string;
};

export type Event<Type extends string = string, Data = unknown> = {
  readonly type: Type;
  readonly data: Data;
  readonly metadata: EventMetadata;
};

/**
 * A request to an aggregate, named in the imperative. `facts` carries what the decision needs
 * besides the data and the state (the clock, directory facts), loaded by the command layer; a
 * command that needs nothing more has none. (An event's `metadata` is its stamp: who, when, under
 * which request; a command's `facts` are what it is decided on.)
 */
export type Command<Type extends string = string, Data = unknown, Facts = undefined> = Facts extends undefined
  ? { readonly type: Type; readonly data: Data; readonly facts?: undefined }
  : { readonly type: Type; readonly data: Data; readonly facts: Facts };

/** An actor used by operator tools (CLI import, seed) that act for the platform, not a user. */
export const systemActor: Actor = { userId: 0, credential: 'system' };
