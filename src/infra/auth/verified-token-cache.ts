import type { ClaimsVerdict } from '../../domain/auth/session-token';
import type { TokenVerifier } from '../../ports/token-verifier';

const MAX_ENTRIES = 10_000;

/**
 * Remembers, in this process only, the tokens the verifier accepted, until each one's `exp`:
 * a client sends the same token on every request, and checking its signature and claims again
 * each time cost as much as the rest of a list request. Only acceptances are kept, and an
 * accepted token can only stay acceptable until it expires (no claim becomes invalid with time
 * before `exp`). What a token grants is still decided per request from the live directory.
 */
export class VerifiedTokenCache implements TokenVerifier {
  private readonly accepted = new Map<string, { verdict: ClaimsVerdict; expiresAtMs: number }>();

  constructor(
    private readonly inner: TokenVerifier,
    private readonly clock: () => Date,
  ) {}

  async verify(token: string): Promise<ClaimsVerdict> {
    const now = this.clock().getTime();
    const hit = this.accepted.get(token);
    if (hit) {
      if (now < hit.expiresAtMs) return hit.verdict;
      this.accepted.delete(token);
    }
    const verdict = await this.inner.verify(token);
    const exp = verdict.ok ? expiryOf(token) : undefined;
    if (exp !== undefined && now < exp) {
      // Oldest first out: a Map iterates in insertion order.
      if (this.accepted.size >= MAX_ENTRIES) this.accepted.delete(this.accepted.keys().next().value as string);
      this.accepted.set(token, { verdict, expiresAtMs: exp });
    }
    return verdict;
  }
}

/** `exp` of a token the verifier has just accepted, in ms; undefined when it cannot be read. */
function expiryOf(token: string): number | undefined {
  try {
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
      exp?: unknown;
    };
    return typeof payload.exp === 'number' ? payload.exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}
