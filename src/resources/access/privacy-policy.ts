import { principal } from './principals';

/**
 * The privacy levels of a resource (docs/api.md "Privacy levels"), one row each. Everything the
 * service knows about a level is said here once and derived elsewhere: the guards below, the zod
 * schemas of records, events and the audit (`privacyLevelSchema`), the refusals and the OpenAPI
 * descriptions (the texts at the end of this file), who a view governed by the level admits
 * (`admits`, read by ./resource-views.ts), and docs/api.md's table (a test compares it).
 *
 * A level is a value, not a state. Its number is in the log for ever: never renumber a row nor
 * remove one. To stop offering a level, make it valid in no block: events at it still parse, and
 * a resource keeps it until someone changes it.
 */

/** Which privacy block a level is set on: where each level is valid differs per block. */
export type PrivacyBlockKind = 'communityProjectOwner' | 'projectOwner' | 'share';

/**
 * What a level's audience is worked out from: the resource's project, the community of the view
 * (null: the project-wide view) and the circles the governing block grants.
 */
export type LevelFacts = {
  readonly projectId: number;
  readonly viewCommunityId: number | null;
  readonly circles: readonly { readonly circleId: number }[];
};

type LevelPolicy = {
  readonly level: number;
  readonly name: string;
  /** docs/api.md's "who sees it" (the resource's editors and the view's community admins always do). */
  readonly whoSees: string;
  /** Where the level may be set: a community-project resource's own level, a project resource's, a share's. */
  readonly validIn: Readonly<Record<PrivacyBlockKind, boolean>>;
  /** A share at this level needs the project to be in the community shared into. */
  readonly needsProjectInCommunity: boolean;
  /** Circles can be granted at this level; a block that leaves it has them revoked. */
  readonly takesCircles: boolean;
  /** The principals (./principals.ts) a view governed by this level admits, besides the resource's editors. */
  readonly admits: (facts: LevelFacts) => readonly string[];
};

const EVERY_BLOCK = { communityProjectOwner: true, projectOwner: true, share: true } as const;

export const PRIVACY_POLICY = {
  Public: {
    level: 1,
    name: 'Public',
    whoSees: 'everyone who may use the service',
    validIn: EVERY_BLOCK,
    needsProjectInCommunity: false,
    takesCircles: false,
    // Everyone who reaches the view (./views.ts `reachesView`).
    admits: () => [principal.public],
  },
  Community: {
    level: 2,
    name: 'Community',
    whoSees: 'approved members of the community of the view',
    // A project resource's own level has no community to refer to, and only a project resource has
    // the project-wide view: there the level admits no one besides the editors.
    validIn: { ...EVERY_BLOCK, projectOwner: false },
    needsProjectInCommunity: true,
    takesCircles: false,
    admits: ({ viewCommunityId }) => (viewCommunityId === null ? [] : [principal.member(viewCommunityId)]),
  },
  Team: {
    level: 3,
    name: 'Team',
    whoSees: "the project's team",
    validIn: EVERY_BLOCK,
    needsProjectInCommunity: true,
    takesCircles: false,
    admits: ({ projectId }) => [principal.team(projectId)],
  },
  Custom: {
    level: 4,
    name: 'Custom',
    whoSees: 'the team, plus the circles granted to the resource (project or community circles)',
    validIn: EVERY_BLOCK,
    needsProjectInCommunity: false,
    takesCircles: true,
    // The team edits the resource, so it is in every audience already.
    admits: ({ circles }) => circles.map((c) => principal.circle(c.circleId)),
  },
  TeamAndMentors: {
    level: 5,
    name: 'Team and mentors',
    whoSees: "the team and the project's mentors",
    validIn: EVERY_BLOCK,
    needsProjectInCommunity: true,
    takesCircles: false,
    admits: ({ projectId }) => [principal.team(projectId), principal.mentor(projectId)],
  },
} as const satisfies Record<string, LevelPolicy>;

/** 0 (undefined) and 6 (set by team) exist elsewhere on the platform; a resource never holds them. */
const PLATFORM_ONLY_LEVELS: readonly number[] = [0, 6];

type Policy = typeof PRIVACY_POLICY;
export type PrivacyLevel = Policy[keyof Policy]['level'];

/** Each level's number by its name: `PRIVACY.Custom` is 4. */
export const PRIVACY = Object.fromEntries(Object.entries(PRIVACY_POLICY).map(([key, row]) => [key, row.level])) as {
  readonly [K in keyof Policy]: Policy[K]['level'];
};

type Row = LevelPolicy & { readonly level: PrivacyLevel };

/** Every row, in level order. */
export const PRIVACY_LEVELS: readonly Row[] = Object.values<Row>(PRIVACY_POLICY).sort((a, b) => a.level - b.level);

const BY_LEVEL: ReadonlyMap<number, Row> = new Map(PRIVACY_LEVELS.map((row) => [row.level, row]));

/** Any level a resource can hold, whatever the block (the log holds only these). */
export function isPrivacyLevel(value: unknown): value is PrivacyLevel {
  return typeof value === 'number' && BY_LEVEL.has(value);
}

export function validLevelFor(block: PrivacyBlockKind, level: unknown): level is PrivacyLevel {
  return isPrivacyLevel(level) && policyOf(level).validIn[block];
}

export const policyOf = (level: PrivacyLevel): LevelPolicy => BY_LEVEL.get(level) as Row;

/** Whether circles can be granted at `level` (false for what is not a level). */
export const takesCircles = (level: number): boolean => BY_LEVEL.get(level)?.takesCircles === true;

/** Whether a share at `level` needs the project in the community shared into (false for what is not a level). */
export const needsProjectInCommunity = (level: number): boolean =>
  BY_LEVEL.get(level)?.needsProjectInCommunity === true;

// ---------------------------------------------------------------------------------------------
// The texts: refusals and descriptions, worded from the rows.

const OFFERED = PRIVACY_LEVELS.filter((row) => Object.values(row.validIn).some(Boolean));
const validIn = (block: PrivacyBlockKind): readonly Row[] => PRIVACY_LEVELS.filter((row) => row.validIn[block]);
const CIRCLE_LEVELS = PRIVACY_LEVELS.filter((row) => row.takesCircles);

/** "a, b and c" (or "or"). */
const listOf = (items: readonly string[], last: 'and' | 'or'): string =>
  items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} ${last} ${items.at(-1)}`;

/** "1 to 5" for consecutive numbers, "1, 3, 4 or 5" otherwise. */
function numbersOf(rows: readonly Row[]): string {
  const levels = rows.map((row) => row.level);
  const first = levels[0] ?? 0;
  const consecutive = levels.length > 2 && levels.every((level, i) => level === first + i);
  return consecutive ? `${first} to ${levels.at(-1)}` : listOf(levels.map(String), 'or');
}

const levelWord = (rows: readonly unknown[]): string => (rows.length === 1 ? 'level' : 'levels');
const named = (row: Row): string => `${row.name} (${row.level})`;
const notALevel = `(${listOf(PLATFORM_ONLY_LEVELS.map(String), 'and')} are not resource levels)`;

const BLOCK_WORDS: Record<PrivacyBlockKind, string> = {
  communityProjectOwner: 'a community-project resource',
  projectOwner: 'a project resource',
  share: 'a share',
};

/** The 400 of a value that is no level anyone may set: "must be 1 to 5 (0 and 6 are not resource levels)". */
export const NOT_A_LEVEL_MESSAGE = `must be ${numbersOf(OFFERED)} ${notALevel}`;

/** The 400 of a level `block` does not take, as SaveResourcePrivacy words it. */
export const levelRefusal = (block: PrivacyBlockKind): string =>
  block === 'projectOwner'
    ? `must be ${numbersOf(validIn(block))} on ${BLOCK_WORDS[block]}`
    : `must be ${numbersOf(validIn(block))} ${notALevel}`;

/** The 400 of a level `block` does not take, as SaveProjectResource words it: it names the levels refused. */
export function levelInvalidOn(block: PrivacyBlockKind): string {
  const refused = PRIVACY_LEVELS.filter((row) => !row.validIn[block]);
  const verb = refused.length === 1 ? 'is' : 'are';
  return `${levelWord(refused)} ${listOf(refused.map(named), 'and')} ${verb} invalid on ${BLOCK_WORDS[block]}`;
}

const NEEDING_PROJECT = OFFERED.filter((row) => row.needsProjectInCommunity);
export const NEEDS_PROJECT_IN_COMMUNITY_MESSAGE = `${levelWord(NEEDING_PROJECT)} ${listOf(
  NEEDING_PROJECT.map((row) => row.name),
  'and',
)} need${NEEDING_PROJECT.length === 1 ? 's' : ''} the project to be in the community shared into`;

export const CIRCLES_NEED_LEVEL_MESSAGE = `circles can only be granted at ${levelWord(CIRCLE_LEVELS)} ${listOf(
  CIRCLE_LEVELS.map(named),
  'or',
)}`;

/** "1 Public, 2 Community, 3 Team, 4 Custom, 5 Team and mentors": every level a record can show. */
export const LEVEL_NAMES = PRIVACY_LEVELS.map((row) => `${row.level} ${row.name}`).join(', ');

/** The levels a resource's own level may be set to, each with where it may not or what it takes. */
export const OWN_LEVEL_CHOICES = OFFERED.map((row) => {
  const notes = [
    ...(row.validIn.projectOwner ? [] : ['not for a project resource']),
    ...(row.validIn.communityProjectOwner ? [] : ['not for a community-project resource']),
    ...(row.takesCircles ? ['granted circles'] : []),
  ];
  return `${row.level} ${row.name}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`;
}).join(', ');

/** "level 4, Custom": where granted circles count. */
export const CIRCLE_LEVEL_NAMES = listOf(
  CIRCLE_LEVELS.map((row) => `level ${row.level}, ${row.name}`),
  'or',
);

/** "level 4": where granted circles count, by number. */
export const CIRCLE_LEVEL_NUMBERS = `${levelWord(CIRCLE_LEVELS)} ${listOf(
  CIRCLE_LEVELS.map((row) => String(row.level)),
  'or',
)}`;

/** docs/api.md's "who sees it" cell of a level: its audience, and where it may not be set. */
export const docsWhoSees = (row: LevelPolicy): string =>
  row.validIn.projectOwner ? row.whoSees : `${row.whoSees} (not valid as a project resource's own level)`;
