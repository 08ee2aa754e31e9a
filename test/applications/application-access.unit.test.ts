import { canListApplications } from '../../src/applications/application-access';
import type { Viewer } from '../../src/directory/viewer';
import {
  D,
  O,
  approvedMember,
  outsider,
  owningAdmin,
  sharedIntoAdmin,
  team,
  viewer,
} from '../resources/resource-fixtures';

/** Who may list the applications of a definition owned by community O. */
describe('canListApplications', () => {
  const definition = { communityId: O };
  const pendingAdmin: Viewer = { ...outsider, communities: new Map([[O, { role: 'admin', status: 'pending' }]]) };

  it.each<[string, Viewer, boolean]>([
    ['an approved admin of the owning community', owningAdmin, true],
    ['an admin of the owning community and of another', viewer(11, { admins: [O, D] }), true],
    ['a pending admin of the owning community', pendingAdmin, false],
    ['an approved member of the owning community', approvedMember, false],
    ['an admin of another community', sharedIntoAdmin, false],
    ["the team of one of the community's projects", team, false],
    ['an outsider', outsider, false],
  ])('given %s, then allowed is %p', (_who, who, allowed) => {
    expect(canListApplications(who, definition)).toBe(allowed);
  });
});
