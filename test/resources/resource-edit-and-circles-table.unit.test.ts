/**
 * Who may edit a resource, and who sees the circles its blocks grant (GetResourcePrivacy), as one
 * table (caller, resource kind, relation, expected). Project P is in communities O, D and E; the
 * community-project resource is owned by O; both resources were created by user 40 and are shared
 * into D. "Creator now X": user 40, whatever role they created it with, holding role X today.
 *
 * - edit:         canEditResource (update, delete)
 * - owner circles: canSeeGrantedCircles for the own block
 * - share circles: canSeeGrantedCircles for the share into D
 */
import { canEditResource, canSeeGrantedCircles } from '../../src/resources/access/permissions';
import type { Viewer } from '../../src/directory/viewer';
import type { Resource } from '../../src/resources/resource';
import { expectEveryCaseOnce } from '../support/decision-table';
import {
  D,
  O,
  approvedMember,
  communityScope,
  mentor,
  outsider,
  owningAdmin,
  projectScope,
  sharedIntoAdmin,
  team,
  viewer,
} from './resource-fixtures';

type Caller =
  | 'team'
  | 'mentor, not the creator'
  | 'creator now on the team'
  | 'creator now a mentor'
  | 'creator now a mentor and admin of D'
  | 'creator now an approved member'
  | 'creator now nothing'
  | 'owning community admin'
  | 'admin of the shared-into community'
  | 'approved member'
  | 'outsider';
type Kind = 'community-project' | 'project';
const RELATIONS = ['edit', 'owner circles', 'share circles'] as const;
type Relation = (typeof RELATIONS)[number];

const CREATOR = 40;
const callers: Record<Caller, Viewer> = {
  team,
  'mentor, not the creator': mentor,
  'creator now on the team': viewer(CREATOR, { team: true }),
  'creator now a mentor': viewer(CREATOR, { mentor: true }),
  'creator now a mentor and admin of D': viewer(CREATOR, { mentor: true, admins: [D] }),
  'creator now an approved member': viewer(CREATOR, { approved: [O, D] }),
  'creator now nothing': viewer(CREATOR),
  'owning community admin': owningAdmin,
  'admin of the shared-into community': sharedIntoAdmin,
  'approved member': approvedMember,
  outsider,
};

const resources: Record<Kind, Pick<Resource, 'scope' | 'createdBy'>> = {
  'community-project': { scope: communityScope, createdBy: CREATOR },
  project: { scope: projectScope, createdBy: CREATOR },
};

const Y = true;
const n = false;
// prettier-ignore
const table: readonly [Caller, Kind, Relation, boolean][] = [
  ['team',                                'community-project', 'edit', Y], ['team',                                'project', 'edit', Y],
  ['mentor, not the creator',             'community-project', 'edit', n], ['mentor, not the creator',             'project', 'edit', n],
  ['creator now on the team',             'community-project', 'edit', Y], ['creator now on the team',             'project', 'edit', Y],
  ['creator now a mentor',                'community-project', 'edit', Y], ['creator now a mentor',                'project', 'edit', Y],
  ['creator now a mentor and admin of D', 'community-project', 'edit', Y], ['creator now a mentor and admin of D', 'project', 'edit', Y],
  ['creator now an approved member',      'community-project', 'edit', n], ['creator now an approved member',      'project', 'edit', n],
  ['creator now nothing',                 'community-project', 'edit', n], ['creator now nothing',                 'project', 'edit', n],
  ['owning community admin',              'community-project', 'edit', Y], ['owning community admin',              'project', 'edit', n],
  ['admin of the shared-into community',  'community-project', 'edit', n], ['admin of the shared-into community',  'project', 'edit', n],
  ['approved member',                     'community-project', 'edit', n], ['approved member',                     'project', 'edit', n],
  ['outsider',                            'community-project', 'edit', n], ['outsider',                            'project', 'edit', n],

  // Circles of the own block: editors only; a reader gets the level without them.
  ['team',                                'community-project', 'owner circles', Y], ['team',                                'project', 'owner circles', Y],
  ['mentor, not the creator',             'community-project', 'owner circles', n], ['mentor, not the creator',             'project', 'owner circles', n],
  ['creator now on the team',             'community-project', 'owner circles', Y], ['creator now on the team',             'project', 'owner circles', Y],
  ['creator now a mentor',                'community-project', 'owner circles', Y], ['creator now a mentor',                'project', 'owner circles', Y],
  ['creator now a mentor and admin of D', 'community-project', 'owner circles', Y], ['creator now a mentor and admin of D', 'project', 'owner circles', Y],
  ['creator now an approved member',      'community-project', 'owner circles', n], ['creator now an approved member',      'project', 'owner circles', n],
  ['creator now nothing',                 'community-project', 'owner circles', n], ['creator now nothing',                 'project', 'owner circles', n],
  ['owning community admin',              'community-project', 'owner circles', Y], ['owning community admin',              'project', 'owner circles', n],
  ['admin of the shared-into community',  'community-project', 'owner circles', n], ['admin of the shared-into community',  'project', 'owner circles', n],
  ['approved member',                     'community-project', 'owner circles', n], ['approved member',                     'project', 'owner circles', n],
  ['outsider',                            'community-project', 'owner circles', n], ['outsider',                            'project', 'owner circles', n],

  // Circles of the share into D: editors, and D's admins for their own share.
  ['team',                                'community-project', 'share circles', Y], ['team',                                'project', 'share circles', Y],
  ['mentor, not the creator',             'community-project', 'share circles', n], ['mentor, not the creator',             'project', 'share circles', n],
  ['creator now on the team',             'community-project', 'share circles', Y], ['creator now on the team',             'project', 'share circles', Y],
  ['creator now a mentor',                'community-project', 'share circles', Y], ['creator now a mentor',                'project', 'share circles', Y],
  ['creator now a mentor and admin of D', 'community-project', 'share circles', Y], ['creator now a mentor and admin of D', 'project', 'share circles', Y],
  ['creator now an approved member',      'community-project', 'share circles', n], ['creator now an approved member',      'project', 'share circles', n],
  ['creator now nothing',                 'community-project', 'share circles', n], ['creator now nothing',                 'project', 'share circles', n],
  ['owning community admin',              'community-project', 'share circles', Y], ['owning community admin',              'project', 'share circles', n],
  ['admin of the shared-into community',  'community-project', 'share circles', Y], ['admin of the shared-into community',  'project', 'share circles', Y],
  ['approved member',                     'community-project', 'share circles', n], ['approved member',                     'project', 'share circles', n],
  ['outsider',                            'community-project', 'share circles', n], ['outsider',                            'project', 'share circles', n],
];

function holds(caller: Caller, kind: Kind, relation: Relation): boolean {
  const who = callers[caller];
  const resource = resources[kind];
  if (relation === 'edit') return canEditResource(who, resource);
  return canSeeGrantedCircles(who, resource, relation === 'share circles' ? D : undefined);
}

describe('who edits, and who sees granted circles', () => {
  it('the table covers every caller, kind and relation exactly once', () => {
    expectEveryCaseOnce(table, Object.keys(callers), Object.keys(resources), RELATIONS);
  });

  it.each(table)('given %s, on a %s resource, then "%s" is %p', (caller, kind, relation, expected) => {
    expect(holds(caller, kind, relation)).toBe(expected);
  });
});
