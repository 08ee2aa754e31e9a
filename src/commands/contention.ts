import { DomainError } from '../domain/errors';

/**
 * What the command layer does when other writers keep winning the race for a stream: wait a
 * random time that grows with each attempt (full jitter, so colliding writers spread apart), and
 * when the attempts run out, answer "try again shortly" rather than fail as if it were a bug.
 */
export type Backoff = (attempt: number) => Promise<void>;

const BASE_MS = 5;
const CAP_MS = 200;

export const jitteredBackoff: Backoff = (attempt) =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(CAP_MS, BASE_MS * 2 ** attempt)));

/** 503 with Retry-After: the request was sound, the stream was too busy; nothing was appended. */
export const contentionExhausted = (streamId: string): DomainError =>
  new DomainError('unavailable', `too many concurrent changes to ${streamId}; try again shortly`);
