/**
 * SaveResourcePrivacy's "who may change what", as one table (OpenFGA-style: caller, object,
 * relation, expected), walked through decide. Project P is in communities O, D and E; the
 * community-project resource is owned by O; both resources are already shared into D at Public.
 *
 * - own:    the resource's own privacy (Public -> Team)
 * - add:    a new share into E (a community of P, not yet shared into)
 * - update: the existing share into D (Public -> Team)
 * - remove: the existing share into D
 */
import type { Viewer } from '../../src/directory/viewer';
import { DomainError } from '../../src/domain/errors';
import type { ResourceEventData } from '../../src/resources/resource-events';
import { expectEveryCaseOnce } from '../support/decision-table';
import {
  D,
  E,
  approvedMember,
  changePrivacy,
  context,
  created,
  given,
  mentor,
  outsider,
  otherCommunityAdmin,
  ownerBlock,
  owningAdmin,
  projectScope,
  shareBlock,
  shared,
  sharedIntoAdmin,
  team,
  refusal,
  withContext,
} from './resource-fixtures';

type Caller =
  | 'team'
  | 'mentor'
  | 'owning community admin'
  | 'admin of the shared-into community'
  | 'admin of another community of the project'
  | 'approved member'
  | 'outsider';
type ResourceKind = 'community-project' | 'project';
type Change = 'own' | 'add' | 'update' | 'remove';
type Expected = 'ok' | 403 | 409;

const callers: Record<Caller, Viewer> = {
  team,
  mentor,
  'owning community admin': owningAdmin, // admin of O
  'admin of the shared-into community': sharedIntoAdmin, // admin of D
  'admin of another community of the project': otherCommunityAdmin, // admin of E, the community "add" targets
  'approved member': approvedMember, // of O, D and E
  outsider,
};

// One row per caller and resource kind, one outcome per change:
// - own:    the team; for a community-project resource also the owning admins.
// - add:    a community-project resource by its owning admins; a project resource by the team.
// - update: as adding, but 409 for whoever may remove that share without changing it.
// - remove: the team, the admins of the community unshared, and the owning admins.
// prettier-ignore
const outcomes: readonly [Caller, ResourceKind, Expected, Expected, Expected, Expected][] = [
  //                                                                 own    add    update  remove
  ['team',                                      'community-project', 'ok',  403,   409,    'ok'],
  ['team',                                      'project',           'ok',  'ok',  'ok',   'ok'],
  ['owning community admin',                    'community-project', 'ok',  'ok',  'ok',   'ok'],
  ['owning community admin',                    'project',           403,   403,   403,    403], // a project resource has no owning community
  ['mentor',                                    'community-project', 403,   403,   403,    403],
  ['mentor',                                    'project',           403,   403,   403,    403],
  ['admin of the shared-into community',        'community-project', 403,   403,   409,    'ok'],
  ['admin of the shared-into community',        'project',           403,   403,   409,    'ok'],
  ['admin of another community of the project', 'community-project', 403,   403,   403,    403], // add: even into their own community
  ['admin of another community of the project', 'project',           403,   403,   403,    403],
  ['approved member',                           'community-project', 403,   403,   403,    403],
  ['approved member',                           'project',           403,   403,   403,    403],
  ['outsider',                                  'community-project', 403,   403,   403,    403],
  ['outsider',                                  'project',           403,   403,   403,    403],
];

/** The same, one row per caller, resource kind and change, as the cases are walked. */
const table: readonly (readonly [Caller, ResourceKind, Change, Expected])[] = outcomes.flatMap(
  ([caller, kind, own, add, update, remove]) =>
    (Object.entries({ own, add, update, remove }) as [Change, Expected][]).map(
      ([change, expected]) => [caller, kind, change, expected] as const,
    ),
);

const requests: Record<Change, ReturnType<typeof changePrivacy>> = {
  own: changePrivacy({ owner: ownerBlock(3) }),
  add: changePrivacy({ sharesToUpsert: [shareBlock(E, 1)] }),
  update: changePrivacy({ sharesToUpsert: [shareBlock(D, 3)] }),
  remove: changePrivacy({ sharesToRemove: [{ communityId: D }] }),
};

const histories: Record<ResourceKind, ResourceEventData[]> = {
  'community-project': [created(), shared(D, 1)],
  project: [created({ scope: projectScope }), shared(D, 1)],
};

describe('who may change what (SaveResourcePrivacy)', () => {
  it('the table covers every caller, resource kind and change exactly once', () => {
    expectEveryCaseOnce(table, Object.keys(callers), Object.keys(histories), Object.keys(requests));
  });

  it.each(table)(
    'given %s, on a %s resource, when the change is "%s", then the outcome is %p',
    (caller, kind, change, expected) => {
      const then = given(histories[kind]).when(withContext(requests[change], context(callers[caller])));
      if (expected === 'ok') then.then(({ events }) => expect(events.length).toBeGreaterThan(0));
      else then.thenThrows(DomainError, refusal(expected === 403 ? 'forbidden' : 'conflict'));
    },
  );
});
