/**
 * What makes a bearer token acceptable (docs/api.md "Credentials"). The JWT library checks the
 * signature, audience and issuer; every rule about time and kind lives here, against a clock the
 * caller passes in, so no lifetime is ever counted from a claim the client chose.
 */
export const SESSION_MAX_LIFETIME_S = 7 * 24 * 3600;
export const IMPERSONATION_MAX_LIFETIME_S = 3600;
/** How far another machine's clock may run ahead of ours when it stamps `iat` or `nbf`. */
export const CLOCK_SKEW_S = 60;

export type SessionClaims = {
  readonly userId: number;
  readonly impersonatorId?: number;
};

export type ClaimsVerdict = { ok: true; claims: SessionClaims } | { ok: false; reason: string };

const decimalId = /^[1-9][0-9]{0,15}$/;

/**
 * Identity providers mark refresh and ID tokens: Cognito with `token_use`, Keycloak with a `typ`
 * claim, others with the `typ` header (`id+jwt`, `refresh+jwt`). Only access tokens open a session.
 */
const NOT_ACCESS = /refresh|offline|^id(\b|_|\+|$)/i;

export function isNonAccessTokenKind(headerTyp: unknown, payload: Record<string, unknown>): boolean {
  if (payload.token_use !== undefined && payload.token_use !== 'access') return true;
  return [headerTyp, payload.typ].some((value) => typeof value === 'string' && NOT_ACCESS.test(value));
}

export function checkSessionClaims(
  payload: Record<string, unknown>,
  nowSeconds: number,
  headerTyp?: unknown,
): ClaimsVerdict {
  const { sub, iat, exp, nbf, act } = payload;
  if (typeof sub !== 'string' || !decimalId.test(sub)) return refused('sub must be a decimal user id');
  if (typeof iat !== 'number' || typeof exp !== 'number') return refused('iat and exp are required');
  if (isNonAccessTokenKind(headerTyp, payload))
    return refused('only access tokens are accepted, not refresh or ID tokens');
  let impersonatorId: number | undefined;
  if (act !== undefined) {
    const actSub = typeof act === 'object' && act !== null ? (act as Record<string, unknown>).sub : undefined;
    if (typeof actSub !== 'string' || !decimalId.test(actSub)) return refused('act.sub must be a decimal user id');
    impersonatorId = Number(actSub);
  }
  if (exp <= nowSeconds) return refused('token expired');
  if (exp < iat) return refused('exp is before iat');
  if (iat > nowSeconds + CLOCK_SKEW_S) return refused('iat is in the future');
  if (nbf !== undefined && (typeof nbf !== 'number' || nbf > nowSeconds + CLOCK_SKEW_S))
    return refused('token not valid yet (nbf)');
  const maxLifetime = impersonatorId === undefined ? SESSION_MAX_LIFETIME_S : IMPERSONATION_MAX_LIFETIME_S;
  // Both bounds: from now (what the client cannot choose) and from iat (what the issuer declared).
  if (exp - nowSeconds > maxLifetime + CLOCK_SKEW_S || exp - iat > maxLifetime) {
    return refused(
      impersonatorId === undefined ? 'token lifetime over 7 days' : 'impersonation token lifetime over 1 hour',
    );
  }
  return {
    ok: true,
    claims: impersonatorId === undefined ? { userId: Number(sub) } : { userId: Number(sub), impersonatorId },
  };
}

const refused = (reason: string): ClaimsVerdict => ({ ok: false, reason });
