import type { Actor } from '../event';
import { DomainError } from '../errors';

export type AccountStatus = 'active' | 'inactive' | 'banned';

/** The authenticated caller of one request. */
export type Caller = {
  readonly userId: number;
  readonly name: string;
  readonly status: AccountStatus;
  readonly platformRoles: readonly string[];
  readonly actor: Actor;
};

/** Inactive or banned accounts get 403 on every endpoint, whatever the credential. */
export function assertAccountMayAct(status: AccountStatus): void {
  if (status !== 'active') throw new DomainError('forbidden', `account is ${status}`);
}

/** Key management and other self-management endpoints need an interactive session. */
export function assertInteractiveSession(caller: Caller): void {
  if (caller.actor.credential !== 'session') {
    throw new DomainError('forbidden', 'this endpoint requires an interactive bearer session, not an API key');
  }
}
