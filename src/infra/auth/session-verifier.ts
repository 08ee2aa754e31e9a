import type { JWTVerifyGetKey, KeyInput } from 'jose';
import { createRemoteJWKSet, errors, jwtVerify, SignJWT } from 'jose';
import type { ClaimsVerdict } from '../../domain/auth/session-token';
import { CLOCK_SKEW_S, checkSessionClaims } from '../../domain/auth/session-token';

export type SessionVerifierOptions = {
  secret?: string;
  jwksUrl?: string;
  /** `aud` the token must carry (AUTH_JWT_AUDIENCE); required with a JWKS URL by the configuration. */
  audience?: string;
  /** `iss` the token must carry (AUTH_JWT_ISSUER). */
  issuer?: string;
  clock?: () => Date;
};

/** Verifies interactive bearer tokens: HS256 with a shared secret, or keys from a JWKS URL. */
export class SessionVerifier {
  private readonly key: Promise<KeyInput> | JWTVerifyGetKey;
  private readonly clock: () => Date;

  constructor(private readonly options: SessionVerifierOptions) {
    if (options.jwksUrl) this.key = createRemoteJWKSet(new URL(options.jwksUrl));
    // Imported once: given the secret's bytes, jose imports them as a key on every verification,
    // which cost as much again as the verification itself (a new caller's first request).
    else if (options.secret)
      this.key = crypto.subtle.importKey(
        'raw',
        new TextEncoder().encode(options.secret),
        { name: 'HMAC', hash: 'SHA-256' },
        false,
        ['verify'],
      );
    else throw new Error('SessionVerifier needs a secret or a JWKS URL');
    this.clock = options.clock ?? (() => new Date());
  }

  async verify(token: string): Promise<ClaimsVerdict> {
    const now = this.clock();
    try {
      const key = typeof this.key === 'function' ? this.key : await this.key;
      const { payload, protectedHeader } = await jwtVerify(token, key, {
        algorithms: ['HS256', 'RS256', 'ES256', 'EdDSA'],
        requiredClaims: ['sub', 'iat', 'exp'],
        currentDate: now,
        // jose's own exp/nbf checks get the skew; checkSessionClaims applies the exact rules.
        clockTolerance: CLOCK_SKEW_S,
        ...(this.options.audience ? { audience: this.options.audience } : {}),
        ...(this.options.issuer ? { issuer: this.options.issuer } : {}),
      });
      return checkSessionClaims(payload, Math.floor(now.getTime() / 1000), protectedHeader.typ);
    } catch (error) {
      if (error instanceof errors.JWTExpired) return { ok: false, reason: 'token expired' };
      if (error instanceof errors.JWSSignatureVerificationFailed)
        return {
          ok: false,
          // The usual cause in development: a dev-token minted with another DATA_DIR's secret.
          reason:
            'bad signature: not signed with a key this service trusts ' +
            "(a dev-token must be minted with the server's DATA_DIR or AUTH_JWT_SECRET)",
        };
      if (error instanceof errors.JWTClaimValidationFailed)
        return { ok: false, reason: `claim ${error.claim} invalid` };
      return { ok: false, reason: 'malformed token' };
    }
  }
}

/** Mints a session token (dev CLI and tests): HS256, `sub`, `iat`, `exp`, optional `act`, `nbf`, `aud`, `iss`. */
export async function mintSessionToken(
  secret: string,
  options: {
    userId: number;
    ttlSeconds?: number;
    impersonatorId?: number;
    issuedAt?: number;
    expiresAt?: number;
    notBefore?: number;
    audience?: string;
    issuer?: string;
    typ?: string;
    claims?: Record<string, unknown>;
  },
): Promise<string> {
  const iat = options.issuedAt ?? Math.floor(Date.now() / 1000);
  const ttl = options.ttlSeconds ?? (options.impersonatorId === undefined ? 7 * 24 * 3600 : 3600);
  const jwt = new SignJWT({
    ...options.claims,
    ...(options.impersonatorId === undefined ? {} : { act: { sub: String(options.impersonatorId) } }),
  })
    .setProtectedHeader({ alg: 'HS256', typ: options.typ ?? 'JWT' })
    .setSubject(String(options.userId))
    .setIssuedAt(iat)
    .setExpirationTime(options.expiresAt ?? iat + ttl);
  if (options.notBefore !== undefined) jwt.setNotBefore(options.notBefore);
  if (options.audience !== undefined) jwt.setAudience(options.audience);
  if (options.issuer !== undefined) jwt.setIssuer(options.issuer);
  return jwt.sign(new TextEncoder().encode(secret));
}
