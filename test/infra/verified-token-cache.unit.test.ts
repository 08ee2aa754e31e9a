import type { ClaimsVerdict } from '../../src/domain/auth/session-token';
import type { TokenVerifier } from '../../src/ports/token-verifier';
import { VerifiedTokenCache } from '../../src/infra/auth/verified-token-cache';

/** A token with the given `exp` (seconds); the cache never reads the signature, the inner verifier does. */
const tokenExpiringAt = (exp: number, sub = '7') =>
  ['e30', Buffer.from(JSON.stringify({ sub, exp })).toString('base64url'), 'sig'].join('.');

function countingVerifier(verdict: ClaimsVerdict): TokenVerifier & { calls: number } {
  const inner = {
    calls: 0,
    async verify() {
      inner.calls += 1;
      return verdict;
    },
  };
  return inner;
}

describe('verified token cache', () => {
  const accepted: ClaimsVerdict = { ok: true, claims: { userId: 7 } };
  let now = Date.UTC(2026, 10, 22, 12, 0, 0);
  const clock = () => new Date(now);

  it('given an accepted token, when it is sent again before it expires, then it is not verified again', async () => {
    // given
    const inner = countingVerifier(accepted);
    const cache = new VerifiedTokenCache(inner, clock);
    const token = tokenExpiringAt(now / 1000 + 3600);
    // when
    const first = await cache.verify(token);
    const second = await cache.verify(token);
    // then
    expect([first, second]).toEqual([accepted, accepted]);
    expect(inner.calls).toBe(1);
  });

  it('given an accepted token, when its exp passes, then it goes back to the verifier', async () => {
    // given
    const inner = countingVerifier(accepted);
    const cache = new VerifiedTokenCache(inner, clock);
    const token = tokenExpiringAt(now / 1000 + 60);
    await cache.verify(token);
    // when
    now += 61_000;
    await cache.verify(token);
    // then
    expect(inner.calls).toBe(2);
  });

  it('given a refused token, then every attempt is verified again (refusals are never remembered)', async () => {
    // given
    const inner = countingVerifier({ ok: false, reason: 'bad signature' });
    const cache = new VerifiedTokenCache(inner, clock);
    const token = tokenExpiringAt(now / 1000 + 3600);
    // when
    await cache.verify(token);
    const again = await cache.verify(token);
    // then
    expect(again.ok).toBe(false);
    expect(inner.calls).toBe(2);
  });
});
