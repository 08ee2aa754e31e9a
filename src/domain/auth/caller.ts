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
  /** The credential may only read: a read-only API key. */
  readonly readOnly?: boolean;
};

/** Inactive or banned accounts get 403 on every endpoint, whatever the credential. */
export function assertAccountMayAct(status: AccountStatus): void {
  if (status !== 'active') throw new DomainError('forbidden', `account is ${status}`);
}

/**
 * Key management needs the user's own login: a bearer session that carries no impersonator. An API
 * key cannot mint, list, rotate or revoke keys (a leaked key would outlive its revocation), and
 * neither can someone acting as the user (a key they minted would outlive their grant).
 */
export function assertOwnLogin(caller: Caller): void {
  const { credential, impersonatorId } = caller.actor;
  if (credential !== 'session') {
    throw new DomainError('forbidden', 'this endpoint needs your own bearer session, not an API key');
  }
  if (impersonatorId !== undefined) {
    throw new DomainError('forbidden', 'this endpoint needs your own bearer session, not an impersonation');
  }
}

/**
 * A read-only API key is refused every route that writes (docs/api.md "Scopes and quotas"); the
 * route declaration asks this of every route it marks `writes`, before the request is read.
 */
export function assertMayWrite(caller: Caller): void {
  if (caller.readOnly === true) throw new DomainError('forbidden', 'this API key is read-only');
}
