/**
 * Principal strings: the vocabulary shared by a resource view's `audience` (written by the
 * projector) and the caller's principals (computed per request). A list query is then one `$in`
 * between the two, so both sides must spell them through these builders, never by hand.
 */
export const principal = {
  /** Anyone who reaches the view (its project or community). */
  public: 'public',
  team: (projectId: number): string => `team:p:${projectId}`,
  mentor: (projectId: number): string => `mentor:p:${projectId}`,
  member: (communityId: number): string => `member:c:${communityId}`,
  admin: (communityId: number): string => `admin:c:${communityId}`,
  circle: (circleId: number): string => `circle:${circleId}`,
  /** The creator of a resource, who may edit it while they are on its project's team or a mentor. */
  author: (userId: number): string => `author:${userId}`,
} as const;
