import type { PrivacyLevel } from '../../src/resources/access/privacy-policy';
import type { PrivacyBlock } from '../../src/resources/resource';
import { revokeAllIfLeavingCustom } from '../../src/resources/privacy-block-rules';
import { D, OWNER, O_CIRCLE, P_CIRCLE, RID, ref, share } from './resource-fixtures';

describe('revokeAllIfLeavingCustom', () => {
  const customWithCircles: PrivacyBlock = { privacyLevel: 4, circles: [ref(P_CIRCLE), ref(O_CIRCLE)] };

  it.each<PrivacyLevel>([1, 2, 3, 5])(
    'given a Custom block with circles, when it moves to %p, then each circle is revoked',
    (level) => {
      expect(revokeAllIfLeavingCustom(RID, OWNER, customWithCircles, level)).toEqual([
        { type: 'CircleRevoked', data: { resourceId: RID, block: OWNER, circle: ref(P_CIRCLE) } },
        { type: 'CircleRevoked', data: { resourceId: RID, block: OWNER, circle: ref(O_CIRCLE) } },
      ]);
    },
  );

  it('given a Custom share with circles, when it stays Custom, then nothing is revoked', () => {
    expect(revokeAllIfLeavingCustom(RID, share(D), customWithCircles, 4)).toEqual([]);
  });

  it.each<PrivacyLevel>([1, 2, 3, 5])(
    'given a block at %p, when it moves to another level, then nothing is revoked, whatever it holds',
    (level) => {
      const block: PrivacyBlock = { privacyLevel: level, circles: [ref(P_CIRCLE)] };
      expect(revokeAllIfLeavingCustom(RID, OWNER, block, level === 1 ? 3 : 1)).toEqual([]);
    },
  );
});
