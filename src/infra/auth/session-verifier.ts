import type { JWTVerifyGetKey } from 'jose';
import { createRemoteJWKSet, errors, jwtVerify, SignJWT } from 'jose';
import type { ClaimsVerdict } from '../../domain/auth/session-token';
import { checkSessionClaims } from '../../domain/auth/session-token';

/** Verifies interactive bearer tokens: HS256 with a shared secret, or keys from a JWKS URL. */
export class SessionVerifier {
  private readonly key: Uint8Array | JWTVerifyGetKey;

  constructor(options: { secret?: string; jwksUrl?: string }) {
    if (options.jwksUrl) this.key = createRemoteJWKSet(new URL(options.jwksUrl));
    else if (options.secret) this.key = new TextEncoder().encode(options.secret);
    else throw new Error('SessionVerifier needs a secret or a JWKS URL');
  }

  async verify(token: string): Promise<ClaimsVerdict> {
    try {
      const { payload } = await jwtVerify(token, this.key as Uint8Array, {
        algorithms: ['HS256', 'RS256', 'ES256', 'EdDSA'],
        requiredClaims: ['sub', 'iat', 'exp'],
      });
      return checkSessionClaims(payload);
    } catch (error) {
      if (error instanceof errors.JWTExpired) return { ok: false, reason: 'token expired' };
      if (error instanceof errors.JWSSignatureVerificationFailed) return { ok: false, reason: 'bad signature' };
      if (error instanceof errors.JWTClaimValidationFailed) return { ok: false, reason: `claim ${error.claim} invalid` };
      return { ok: false, reason: 'malformed token' };
    }
  }
}

/** Mints a session token (dev CLI and tests): HS256, `sub`, `iat`, `exp`, optional `act`. */
export async function mintSessionToken(
  secret: string,
  options: { userId: number; ttlSeconds?: number; impersonatorId?: number; issuedAt?: number },
): Promise<string> {
  const iat = options.issuedAt ?? Math.floor(Date.now() / 1000);
  const ttl = options.ttlSeconds ?? (options.impersonatorId === undefined ? 7 * 24 * 3600 : 3600);
  const jwt = new SignJWT(options.impersonatorId === undefined ? {} : { act: { sub: String(options.impersonatorId) } })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(String(options.userId))
    .setIssuedAt(iat)
    .setExpirationTime(iat + ttl);
  return jwt.sign(new TextEncoder().encode(secret));
}
