/**
 * Resource privacy levels (SPEC "Privacy level"). Values, not a state machine. 0 (undefined) and
 * 6 (set by team) exist elsewhere on the platform and are rejected for a resource.
 */
export const PRIVACY = {
  Public: 1,
  Community: 2,
  Team: 3,
  Custom: 4,
  TeamAndMentors: 5,
} as const;

export type PrivacyLevel = (typeof PRIVACY)[keyof typeof PRIVACY];

/** Which privacy block a level is for: the validity table of SPEC differs per block. */
export type PrivacyBlockKind = 'communityProjectOwner' | 'projectOwner' | 'share';

export function isPrivacyLevel(value: unknown): value is PrivacyLevel {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 5;
}

/**
 * Community (2) has no community to refer to on a project resource's own level, so it is invalid
 * there only; everything outside 1..5 is invalid everywhere.
 */
export function validLevelFor(block: PrivacyBlockKind, level: unknown): level is PrivacyLevel {
  if (!isPrivacyLevel(level)) return false;
  return !(block === 'projectOwner' && level === PRIVACY.Community);
}
