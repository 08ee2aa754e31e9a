import type { Request, RequestHandler, Response } from 'express';
import type { RequestInfo } from '../../commands/request-info';
import type { Caller } from '../../domain/auth/caller';
import { assertAccountMayAct } from '../../domain/auth/caller';
import type { Actor } from '../../domain/event';
import { DomainError } from '../../domain/errors';
import type { TokenVerifier } from '../../ports/token-verifier';
import { clientAddressOf } from './client-address';

/** Who a verified API key acts as, and whether it may only read. */
export type ApiKeyIdentity = { readonly actor: Omit<Actor, 'impersonatorId'>; readonly readOnly: boolean };

/** Verifies an `X-API-Key` header; supplied by the API key feature. */
export interface ApiKeyAuthenticator {
  authenticate(key: string, req: Request, res: Response): Promise<ApiKeyIdentity>;
}

/** Who a user is, as the directory knows them: what a credential's user id is checked against. */
export type CallerDirectory = {
  user(userId: number): Promise<Pick<Caller, 'userId' | 'name' | 'status' | 'platformRoles'> | null>;
};

const unauthenticated = (reason: string) => new DomainError('unauthenticated', reason);

/**
 * A request that carried no credential this API takes (none at all, or another scheme than
 * Bearer): its challenge names no error (RFC 6750 §3.1), the client may not have known the API
 * asks for one. The reason is in the problem's detail.
 */
export class NoCredentialError extends DomainError {
  constructor(reason: string) {
    super('unauthenticated', reason);
  }
}

export function authenticate(deps: {
  sessions: TokenVerifier;
  directory: CallerDirectory;
  apiKeys?: ApiKeyAuthenticator;
}): RequestHandler {
  return async (req, res, next) => {
    const authorization = req.header('authorization');
    const apiKey = req.header('x-api-key');
    if (authorization !== undefined && apiKey !== undefined) {
      throw unauthenticated('send either X-API-Key or Authorization: Bearer, not both');
    }
    let actor: Actor;
    let readOnly = false;
    if (apiKey !== undefined) {
      if (!deps.apiKeys) throw unauthenticated('API key authentication is not enabled on this server');
      ({ actor, readOnly } = await deps.apiKeys.authenticate(apiKey, req, res));
    } else {
      if (authorization === undefined)
        throw new NoCredentialError('authentication required: send Authorization: Bearer <token> or X-API-Key');
      const match = /^Bearer +(\S+)$/i.exec(authorization);
      if (!match?.[1]) throw new NoCredentialError('the Authorization header must be "Bearer <token>"');
      const token = match[1];
      if (token.startsWith('svc_')) throw unauthenticated('API keys go in the X-API-Key header, not in Authorization');
      const verdict = await deps.sessions.verify(token);
      if (!verdict.ok) throw unauthenticated(verdict.reason);
      const { userId, impersonatorId } = verdict.claims;
      actor =
        impersonatorId === undefined
          ? { userId, credential: 'session' }
          : { userId, credential: 'session', impersonatorId };
    }
    if (actor.impersonatorId !== undefined) {
      // The impersonation grant lives only as long as the impersonator's own account: a support
      // agent who is banned loses every token they hold at once. 401, not 403: the credential is
      // void, whatever the impersonated user may do.
      const impersonator = await deps.directory.user(actor.impersonatorId);
      if (!impersonator) throw unauthenticated('the impersonator is not a user this service knows');
      if (impersonator.status !== 'active') throw unauthenticated('the impersonator account is not active');
    }
    const user = await deps.directory.user(actor.userId);
    if (!user) throw unauthenticated('the token names a user this service does not know');
    assertAccountMayAct(user.status);
    const caller: Caller = {
      userId: user.userId,
      name: user.name,
      status: user.status,
      platformRoles: user.platformRoles,
      actor,
      ...(readOnly ? { readOnly } : {}),
    };
    res.locals.caller = caller;
    next();
  };
}

export function callerOf(res: Response): Caller {
  const caller = res.locals.caller as Caller | undefined;
  if (!caller) throw unauthenticated('authentication required');
  return caller;
}

/** Who is asking, under which correlation id and from which address: what a command records in its events' metadata. */
export function requestInfoOf(res: Response): RequestInfo {
  return {
    caller: callerOf(res),
    correlationId: res.locals.correlationId as string,
    clientAddress: clientAddressOf(res.req),
    traceparent: res.locals.traceparent as string | undefined,
  };
}
