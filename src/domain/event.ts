/**
 * Every event and command is a readonly `{type, data, metadata}` record whose
 * TypeScript alias equals its `type` string (Emmett's convention).
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
};

export type Event<Type extends string = string, Data = unknown> = {
  readonly type: Type;
  readonly data: Data;
  readonly metadata: EventMetadata;
};

export type Command<Type extends string = string, Data = unknown> = {
  readonly type: Type;
  readonly data: Data;
  readonly metadata: EventMetadata;
};

/** An actor used by operator tools (CLI import, seed) that act for the platform, not a user. */
export const systemActor: Actor = { userId: 0, credential: 'system' };
