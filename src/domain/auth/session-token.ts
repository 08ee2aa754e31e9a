/**
 * What makes a bearer token's claims acceptable (DESIGN.md "Credentials"). Signature and expiry
 * are checked by the JWT library; these are the rules it cannot know.
 */
export const SESSION_MAX_LIFETIME_S = 7 * 24 * 3600;
export const IMPERSONATION_MAX_LIFETIME_S = 3600;

export type SessionClaims = {
  readonly userId: number;
  readonly impersonatorId?: number;
};

export type ClaimsVerdict = { ok: true; claims: SessionClaims } | { ok: false; reason: string };

const decimalId = /^[1-9][0-9]{0,15}$/;

export function checkSessionClaims(payload: Record<string, unknown>): ClaimsVerdict {
  const { sub, iat, exp, act } = payload;
  if (typeof sub !== 'string' || !decimalId.test(sub)) return { ok: false, reason: 'sub must be a decimal user id' };
  if (typeof iat !== 'number' || typeof exp !== 'number') return { ok: false, reason: 'iat and exp are required' };
  let impersonatorId: number | undefined;
  if (act !== undefined) {
    const actSub = typeof act === 'object' && act !== null ? (act as Record<string, unknown>).sub : undefined;
    if (typeof actSub !== 'string' || !decimalId.test(actSub)) return { ok: false, reason: 'act.sub must be a decimal user id' };
    impersonatorId = Number(actSub);
  }
  const maxLifetime = impersonatorId === undefined ? SESSION_MAX_LIFETIME_S : IMPERSONATION_MAX_LIFETIME_S;
  if (exp - iat > maxLifetime) {
    return { ok: false, reason: impersonatorId === undefined ? 'token lifetime over 7 days' : 'impersonation token lifetime over 1 hour' };
  }
  return { ok: true, claims: impersonatorId === undefined ? { userId: Number(sub) } : { userId: Number(sub), impersonatorId } };
}
