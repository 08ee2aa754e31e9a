import type { ClaimsVerdict } from '../domain/auth/session-token';

/** Verifies a bearer session token (src/infra/auth/session-verifier.ts, cached by verified-token-cache.ts). */
export interface TokenVerifier {
  verify(token: string): Promise<ClaimsVerdict>;
}
