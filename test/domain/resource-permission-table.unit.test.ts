/**
 * SPEC SaveResourcePrivacy "Who may change what", as one table (OpenFGA-style: caller, object,
 * relation, expected), walked through decide. Project P is in communities O, D and E; the
 * community-project resource is owned by O; both resources are already shared into D at Public.
 *
 * - own:    the resource's own privacy (Public -> Team)
 * - add:    a new share into E (a community of P, not yet shared into)
 * - update: the existing share into D (Public -> Team)
 * - remove: the existing share into D
 */
import type { Viewer } from '../../src/domain/access/viewer';
import { DomainError } from '../../src/domain/errors';
import type { ResourceEventData } from '../../src/domain/resource/resource-events';
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

// prettier-ignore
const table: readonly [Caller, ResourceKind, Change, Expected][] = [
  // The resource's own privacy: the team; for a community-project resource also the owning admins.
  ['team',                                      'community-project', 'own',    'ok'],
  ['team',                                      'project',           'own',    'ok'],
  ['owning community admin',                    'community-project', 'own',    'ok'],
  ['owning community admin',                    'project',           'own',    403], // a project resource has no owning community
  ['mentor',                                    'community-project', 'own',    403],
  ['mentor',                                    'project',           'own',    403],
  ['admin of the shared-into community',        'community-project', 'own',    403],
  ['admin of the shared-into community',        'project',           'own',    403],
  ['admin of another community of the project', 'community-project', 'own',    403],
  ['admin of another community of the project', 'project',           'own',    403],
  ['approved member',                           'community-project', 'own',    403],
  ['approved member',                           'project',           'own',    403],
  ['outsider',                                  'community-project', 'own',    403],
  ['outsider',                                  'project',           'own',    403],

  // Add a share: a community-project resource by its owning admins; a project resource by the team.
  ['team',                                      'community-project', 'add',    403],
  ['team',                                      'project',           'add',    'ok'],
  ['owning community admin',                    'community-project', 'add',    'ok'],
  ['owning community admin',                    'project',           'add',    403],
  ['mentor',                                    'community-project', 'add',    403],
  ['mentor',                                    'project',           'add',    403],
  ['admin of the shared-into community',        'community-project', 'add',    403],
  ['admin of the shared-into community',        'project',           'add',    403],
  ['admin of another community of the project', 'community-project', 'add',    403], // even into their own community
  ['admin of another community of the project', 'project',           'add',    403],
  ['approved member',                           'community-project', 'add',    403],
  ['approved member',                           'project',           'add',    403],
  ['outsider',                                  'community-project', 'add',    403],
  ['outsider',                                  'project',           'add',    403],

  // Update a share: as adding, but 409 for whoever may remove that share without changing it.
  ['team',                                      'community-project', 'update', 409],
  ['team',                                      'project',           'update', 'ok'],
  ['owning community admin',                    'community-project', 'update', 'ok'],
  ['owning community admin',                    'project',           'update', 403],
  ['mentor',                                    'community-project', 'update', 403],
  ['mentor',                                    'project',           'update', 403],
  ['admin of the shared-into community',        'community-project', 'update', 409],
  ['admin of the shared-into community',        'project',           'update', 409],
  ['admin of another community of the project', 'community-project', 'update', 403],
  ['admin of another community of the project', 'project',           'update', 403],
  ['approved member',                           'community-project', 'update', 403],
  ['approved member',                           'project',           'update', 403],
  ['outsider',                                  'community-project', 'update', 403],
  ['outsider',                                  'project',           'update', 403],

  // Remove a share: the team, the admins of the community unshared, and (DESIGN) the owning admins.
  ['team',                                      'community-project', 'remove', 'ok'],
  ['team',                                      'project',           'remove', 'ok'],
  ['owning community admin',                    'community-project', 'remove', 'ok'],
  ['owning community admin',                    'project',           'remove', 403],
  ['mentor',                                    'community-project', 'remove', 403],
  ['mentor',                                    'project',           'remove', 403],
  ['admin of the shared-into community',        'community-project', 'remove', 'ok'],
  ['admin of the shared-into community',        'project',           'remove', 'ok'],
  ['admin of another community of the project', 'community-project', 'remove', 403],
  ['admin of another community of the project', 'project',           'remove', 403],
  ['approved member',                           'community-project', 'remove', 403],
  ['approved member',                           'project',           'remove', 403],
  ['outsider',                                  'community-project', 'remove', 403],
  ['outsider',                                  'project',           'remove', 403],
];

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

describe('who may change what (SPEC SaveResourcePrivacy)', () => {
  it('the table covers every caller, resource kind and change exactly once', () => {
    expectEveryCaseOnce(table, Object.keys(callers), Object.keys(histories), Object.keys(requests));
  });

  it.each(table)('given %s, on a %s resource, when the change is "%s", then the outcome is %p', (caller, kind, change, expected) => {
    const then = given(histories[kind]).when(withContext(requests[change], context(callers[caller])));
    if (expected === 'ok') then.then(({ events }) => expect(events.length).toBeGreaterThan(0));
    else then.thenThrows(DomainError, refusal(expected === 403 ? 'forbidden' : 'conflict'));
  });
});
