import { DomainError } from '../../src/domain/errors';
import type { PrivacyLevel } from '../../src/resources/access/privacy-policy';
import type { PrivacyBlock } from '../../src/resources/resource';
import { revokeAllIfLeavingCustom } from '../../src/resources/resource-decide-common';
import type { ResourceDecisionContext } from '../../src/resources/resource-commands';
import {
  D,
  OWNER,
  O_CIRCLE,
  P,
  P_CIRCLE,
  RID,
  changePrivacy,
  context,
  created,
  createResource,
  deleteResource,
  given,
  ownerBlock,
  project,
  ref,
  share,
  team,
  updateResource,
  withContext,
} from './resource-fixtures';

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

describe('every resource command: the facts must be those of the resource’s project', () => {
  // The handler loads the project of the resource; facts of another project are a bug in the
  // caller (a plain Error, a 500), not a refusal of the request.
  const otherProjectFacts: ResourceDecisionContext = { ...context(team), project: { ...project, projectId: P + 1 } };
  const isNotADomainError = (error: Error) => !(error instanceof DomainError);

  it.each([
    ['CreateResource', [], createResource()],
    ['UpdateResource', [created()], updateResource()],
    ['DeleteResource', [created()], deleteResource()],
    ['ChangeResourcePrivacy', [created()], changePrivacy({ owner: ownerBlock(3) })],
  ] as const)(
    'given a resource of P, when %s is decided with the facts of another project, then it throws a plain Error',
    (_command, history, request) => {
      given([...history])
        .when(withContext(request, otherProjectFacts))
        .thenThrows(Error, isNotADomainError);
    },
  );

  it('given a resource of P, when it is deleted with the facts of P, then it is deleted (the same facts, the right project)', () => {
    given([created()])
      .when(withContext(deleteResource(), context(team)))
      .then([{ type: 'ResourceDeleted', data: { resourceId: RID, resourceUrl: 'resource_files/abc/manual.pdf' } }]);
  });
});
