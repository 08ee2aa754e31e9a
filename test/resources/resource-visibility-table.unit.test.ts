/**
 * Who sees a resource, by level, caller and view, as one table walked through the read model:
 * viewsOf (the documents the projector writes) + principalsFor/administersView (the caller, per
 * request) + canSee (the query's `$in`).
 *
 * The world: project P is in communities O, D and E, and not in N.
 * - PR: a project resource of P at level L, not shared.
 * - R:  a community-project resource owned by O at level L, shared into D at L, and into N at L
 *       where a share into a community P is not in may have that level (1 and 4 only).
 * At Custom (a level that takes circles) every block grants P_CIRCLE (active) and P_INACTIVE_CIRCLE
 * (inactive).
 *
 * Caller kinds are relative to the view's community X (for the project-wide view, X = O, a
 * community P belongs to). Everyone but "non-member of a public community" lives in a world where
 * the project and every community are private; that one sees them all public.
 *
 * Expected: one character per level of the policy table, in level order (1..5): Y visible, N not,
 * - that combination cannot exist. A new level makes every row one character short until its
 * column is worked out by hand.
 */
import { canSee, viewsOf } from '../../src/resources/access/resource-views';
import type { View } from '../../src/resources/access/views';
import { administersView, principalsFor, viewKey } from '../../src/resources/access/views';
import type { Viewer } from '../../src/directory/viewer';
import type { PrivacyLevel } from '../../src/resources/access/privacy-policy';
import {
  PRIVACY_LEVELS,
  needsProjectInCommunity,
  takesCircles,
  validLevelFor,
} from '../../src/resources/access/privacy-policy';
import type { PrivacyBlock, Resource, Share } from '../../src/resources/resource';
import { expectEveryCaseOnce } from '../support/decision-table';
import {
  D,
  E,
  EARLIER,
  N,
  O,
  P_CIRCLE,
  P_INACTIVE_CIRCLE,
  RID,
  communityScope,
  community,
  project,
  projectScope,
  ref,
  viewer,
} from './resource-fixtures';

const CALLER_KINDS = [
  'non-member of a public community',
  'approved member',
  'pending member',
  'community admin',
  'team',
  'mentor',
  'circle member',
  'member of an inactive circle',
  'outsider of a private community',
] as const;
type CallerKind = (typeof CALLER_KINDS)[number];

type ViewKind =
  | 'project-wide'
  | 'owning community'
  | 'other community of the project'
  | 'community shared into'
  | 'community the project is not in, shared into'
  | 'community the project is not in, not shared';

const callerFor = (kind: CallerKind, x: number): Viewer => {
  switch (kind) {
    case 'non-member of a public community':
      return viewer(31);
    case 'approved member':
      return viewer(32, { approved: [x] });
    case 'pending member':
      return viewer(33, { pending: [x] });
    case 'community admin':
      return viewer(34, { admins: [x] });
    case 'team':
      return viewer(35, { team: true });
    case 'mentor':
      return viewer(36, { mentor: true });
    case 'circle member':
      return viewer(37, { circles: [P_CIRCLE] });
    case 'member of an inactive circle':
      // Member of P_INACTIVE_CIRCLE, which the directory reader leaves out while it is inactive.
      return viewer(38, { circles: [] });
    case 'outsider of a private community':
      return viewer(39);
  }
};

// prettier-ignore
const table: readonly [ViewKind, CallerKind, string][] = [
  ['project-wide', 'non-member of a public community', 'Y-NNN'],
  ['project-wide', 'approved member',                  'Y-NNN'],
  ['project-wide', 'pending member',                   'N-NNN'],
  ['project-wide', 'community admin',                  'Y-NNN'], // administers a community, not the project view
  ['project-wide', 'team',                             'Y-YYY'],
  ['project-wide', 'mentor',                           'Y-NNY'],
  ['project-wide', 'circle member',                    'N-NYN'],
  ['project-wide', 'member of an inactive circle',     'N-NNN'],
  ['project-wide', 'outsider of a private community',  'N-NNN'],

  ['owning community', 'non-member of a public community', 'YNNNN'],
  ['owning community', 'approved member',                  'YYNNN'],
  ['owning community', 'pending member',                   'NNNNN'],
  ['owning community', 'community admin',                  'YYYYY'],
  ['owning community', 'team',                             'YYYYY'],
  ['owning community', 'mentor',                           'NNNNY'], // a private community is not reached through the project
  ['owning community', 'circle member',                    'NNNYN'],
  ['owning community', 'member of an inactive circle',     'NNNNN'],
  ['owning community', 'outsider of a private community',  'NNNNN'],

  ['other community of the project', 'non-member of a public community', 'Y-NNN'],
  ['other community of the project', 'approved member',                  'Y-NNN'],
  ['other community of the project', 'pending member',                   'N-NNN'],
  ['other community of the project', 'community admin',                  'Y-YYY'],
  ['other community of the project', 'team',                             'Y-YYY'],
  ['other community of the project', 'mentor',                           'N-NNY'],
  ['other community of the project', 'circle member',                    'N-NYN'],
  ['other community of the project', 'member of an inactive circle',     'N-NNN'],
  ['other community of the project', 'outsider of a private community',  'N-NNN'],

  ['community shared into', 'non-member of a public community', 'YNNNN'],
  ['community shared into', 'approved member',                  'YYNNN'],
  ['community shared into', 'pending member',                   'NNNNN'],
  ['community shared into', 'community admin',                  'YYYYY'],
  ['community shared into', 'team',                             'YYYYY'],
  ['community shared into', 'mentor',                           'NNNNY'],
  ['community shared into', 'circle member',                    'NNNYN'],
  ['community shared into', 'member of an inactive circle',     'NNNNN'],
  ['community shared into', 'outsider of a private community',  'NNNNN'],

  ['community the project is not in, shared into', 'non-member of a public community', 'Y--N-'],
  ['community the project is not in, shared into', 'approved member',                  'Y--N-'],
  ['community the project is not in, shared into', 'pending member',                   'N--N-'],
  ['community the project is not in, shared into', 'community admin',                  'Y--Y-'],
  ['community the project is not in, shared into', 'team',                             'Y--Y-'],
  ['community the project is not in, shared into', 'mentor',                           'N--N-'],
  ['community the project is not in, shared into', 'circle member',                    'N--Y-'],
  ['community the project is not in, shared into', 'member of an inactive circle',     'N--N-'],
  ['community the project is not in, shared into', 'outsider of a private community',  'N--N-'],

  // A project resource never appears in a community its project is not in: no one sees it there.
  ['community the project is not in, not shared', 'non-member of a public community', 'N-NNN'],
  ['community the project is not in, not shared', 'approved member',                  'N-NNN'],
  ['community the project is not in, not shared', 'pending member',                   'N-NNN'],
  ['community the project is not in, not shared', 'community admin',                  'N-NNN'],
  ['community the project is not in, not shared', 'team',                             'N-NNN'],
  ['community the project is not in, not shared', 'mentor',                           'N-NNN'],
  ['community the project is not in, not shared', 'circle member',                    'N-NNN'],
  ['community the project is not in, not shared', 'member of an inactive circle',     'N-NNN'],
  ['community the project is not in, not shared', 'outsider of a private community',  'N-NNN'],
];

const LEVELS: readonly PrivacyLevel[] = PRIVACY_LEVELS.map((row) => row.level);

const block = (privacyLevel: PrivacyLevel): PrivacyBlock => ({
  privacyLevel,
  circles: takesCircles(privacyLevel) ? [ref(P_CIRCLE), ref(P_INACTIVE_CIRCLE)] : [],
});

const base = {
  resourceId: RID,
  paragraphId: null,
  name: 'Pump manual',
  description: '',
  resourceUrl: 'resource_files/abc/manual.pdf',
  resourceType: 3,
  image: '',
  icon: '',
  tags: [],
  postDate: EARLIER,
  lastUpdated: EARLIER,
  createdBy: 35,
  createdByMentor: false,
} as const;

/** PR, or null when a project resource cannot have the level (Community). */
function projectResource(level: PrivacyLevel): Resource | null {
  if (!validLevelFor('projectOwner', level)) return null;
  return { ...base, scope: projectScope, owner: block(level), shares: [] };
}

/** R, owned by O and shared into D (and into N at the levels a share there may have). */
function communityProjectResource(level: PrivacyLevel): Resource {
  const shares: Share[] = [{ communityId: D, ...block(level) }];
  if (!needsProjectInCommunity(level)) shares.push({ communityId: N, ...block(level) });
  return { ...base, scope: communityScope, owner: block(level), shares };
}

const scenario: Record<
  ViewKind,
  { resource: (level: PrivacyLevel) => Resource | null; x: number; community: number | null }
> = {
  'project-wide': { resource: projectResource, x: O, community: null },
  'owning community': { resource: communityProjectResource, x: O, community: O },
  'other community of the project': { resource: projectResource, x: E, community: E },
  'community shared into': { resource: communityProjectResource, x: D, community: D },
  'community the project is not in, shared into': {
    resource: (level) => (needsProjectInCommunity(level) ? null : communityProjectResource(level)),
    x: N,
    community: N,
  },
  'community the project is not in, not shared': { resource: projectResource, x: N, community: N },
};

function visibility(viewKind: ViewKind, callerKind: CallerKind): string {
  const { resource: resourceAt, x, community: viewCommunity } = scenario[viewKind];
  const isPublic = callerKind === 'non-member of a public community';
  const visibility = isPublic ? 'public' : 'private';
  const theProject = { ...project, visibility } as const;
  const view: View =
    viewCommunity === null
      ? { kind: 'project', project: theProject }
      : { kind: 'community', project: theProject, community: community(viewCommunity, visibility) };
  const caller = callerFor(callerKind, x);
  const principals = new Set(principalsFor(caller, view));
  const administers = administersView(caller, view);

  return LEVELS.map((level) => {
    const resource = resourceAt(level);
    if (resource === null) return '-';
    const doc = viewsOf(resource, project.communityIds).find((v) => v.viewKey === viewKey(view));
    return doc !== undefined && canSee(principals, administers, doc) ? 'Y' : 'N';
  }).join('');
}

describe('who sees a resource (visibility read model)', () => {
  it('the table covers every view and caller kind exactly once', () => {
    expectEveryCaseOnce(table, Object.keys(scenario), CALLER_KINDS);
  });

  it.each(table)('in the %s view, a caller who is %s sees the levels as %s', (viewKind, callerKind, expected) => {
    expect(visibility(viewKind, callerKind)).toBe(expected);
  });
});
