import {
  DIRECTORY_EVENT_TYPES,
  DIRECTORY_STREAM,
  directoryBatchSchema,
  directoryEventSchema,
} from '../../src/directory/directory-events';

/** The directory feed's schema (docs/api.md "Directory"): what a batch from the platform must look like. */
const valid = {
  UserUpserted: { userId: 1, name: 'Ada', status: 'active', platformRoles: ['auditor'] },
  CommunityUpserted: { communityId: 1, name: 'One', visibility: 'public' },
  CommunityMemberSet: { communityId: 1, userId: 1, role: 'admin', status: 'approved' },
  CommunityMemberRemoved: { communityId: 1, userId: 1 },
  ProjectUpserted: { projectId: 1, name: 'Solar', visibility: 'private', teamCircleId: 2, mentorsCircleId: 3 },
  ProjectMemberSet: { projectId: 1, userId: 1, role: 'team' },
  ProjectMemberRemoved: { projectId: 1, userId: 1 },
  CommunityProjectUpserted: { communityProjectId: 1, communityId: 1, projectId: 1 },
  CommunityProjectRemoved: { communityProjectId: 1 },
  CircleUpserted: { circleId: 1, name: 'C', longName: '', isActive: true, projectId: 1, communityId: null },
  CircleMemberSet: { circleId: 1, userId: 1 },
  CircleMemberRemoved: { circleId: 1, userId: 1 },
  ParagraphUpserted: { paragraphId: 1, projectId: 1, communityId: null },
  ApplicationDefinitionUpserted: { applicationDefinitionId: 1, name: 'Call', communityId: 1 },
  ApplicationUpserted: {
    applicationId: 1,
    applicationDefinitionId: 1,
    name: 'App',
    submittedAt: '2025-03-01T10:00:00+01:00',
    tags: ['t'],
    country: null,
    stage: 'seed',
    industry: null,
    sdgs: [],
    userInterests: [],
  },
} as const;
type EventType = keyof typeof valid;

const parse = (type: string, data: unknown) => directoryEventSchema.safeParse({ type, data });
/** The path of the first problem, or null when the event is accepted. */
const refusedAt = (type: EventType, change: Record<string, unknown>) => {
  const result = parse(type, { ...valid[type], ...change });
  return result.success ? null : result.error.issues[0]?.path;
};
const text = (n: number) => 'x'.repeat(n);
const items = (n: number, item: string) => Array.from({ length: n }, () => item);

describe('directory events', () => {
  it('given one event of every type, then every one is accepted and the types are exactly these', () => {
    const results = Object.entries(valid).map(([type, data]) => parse(type, data).success);

    expect(results).toEqual(Object.keys(valid).map(() => true));
    expect([...DIRECTORY_EVENT_TYPES].sort()).toEqual(Object.keys(valid).sort());
    expect(DIRECTORY_STREAM).toBe('directory');
  });

  it('given an event type the feed does not have, then it is refused', () => {
    expect(parse('UserDeleted', { userId: 1 }).success).toBe(false);
  });

  it.each<[EventType, Record<string, unknown>]>([
    ['UserUpserted', { status: 'inactive' }],
    ['UserUpserted', { status: 'banned' }],
    ['UserUpserted', { platformRoles: undefined }],
    ['UserUpserted', { platformRoles: items(10, 'auditor') }],
    ['UserUpserted', { name: text(300) }],
    ['CommunityUpserted', { visibility: 'private' }],
    ['CommunityMemberSet', { role: 'member', status: 'pending' }],
    ['ProjectUpserted', { visibility: 'public' }],
    ['ProjectMemberSet', { role: 'mentor' }],
    ['CircleUpserted', { projectId: null, communityId: 1, longName: text(500), isActive: false }],
    ['ParagraphUpserted', { communityId: 4 }],
    ['ApplicationUpserted', { submittedAt: '2025-03-01T10:00:00Z' }],
    [
      'ApplicationUpserted',
      { tags: items(100, text(100)), sdgs: items(50, text(100)), userInterests: items(100, 'i') },
    ],
    ['ApplicationUpserted', { country: text(100), stage: null, industry: text(100) }],
  ])('given a %s with %j, then it is accepted', (type, change) => {
    expect(refusedAt(type, change)).toBeNull();
  });

  it.each<[EventType, Record<string, unknown>, string]>([
    ['UserUpserted', { userId: 0 }, 'userId'],
    ['UserUpserted', { userId: -1 }, 'userId'],
    ['UserUpserted', { userId: 1.5 }, 'userId'],
    ['UserUpserted', { name: '' }, 'name'],
    ['UserUpserted', { name: text(301) }, 'name'],
    ['UserUpserted', { status: 'deleted' }, 'status'],
    ['UserUpserted', { platformRoles: ['admin'] }, 'platformRoles.0'],
    ['UserUpserted', { platformRoles: items(11, 'auditor') }, 'platformRoles'],
    ['UserUpserted', { email: 'ada@example.org' }, ''],
    ['CommunityUpserted', { visibility: 'hidden' }, 'visibility'],
    ['CommunityMemberSet', { role: 'owner' }, 'role'],
    ['CommunityMemberSet', { status: 'invited' }, 'status'],
    ['ProjectUpserted', { visibility: 'secret' }, 'visibility'],
    ['ProjectUpserted', { teamCircleId: 0 }, 'teamCircleId'],
    ['ProjectMemberSet', { role: 'admin' }, 'role'],
    ['CircleUpserted', { projectId: 1, communityId: 1 }, 'projectId'],
    ['CircleUpserted', { projectId: null, communityId: null }, 'projectId'],
    ['CircleUpserted', { longName: text(501) }, 'longName'],
    ['CircleUpserted', { isActive: 'yes' }, 'isActive'],
    ['ApplicationUpserted', { submittedAt: '2025-03-01' }, 'submittedAt'],
    ['ApplicationUpserted', { tags: [text(101)] }, 'tags.0'],
    ['ApplicationUpserted', { tags: items(101, 't') }, 'tags'],
    ['ApplicationUpserted', { sdgs: items(51, 's') }, 'sdgs'],
    ['ApplicationUpserted', { sdgs: [text(101)] }, 'sdgs.0'],
    ['ApplicationUpserted', { userInterests: items(101, 'i') }, 'userInterests'],
    ['ApplicationUpserted', { userInterests: [text(101)] }, 'userInterests.0'],
    ['ApplicationUpserted', { country: text(101) }, 'country'],
    ['ApplicationUpserted', { stage: text(101) }, 'stage'],
    ['ApplicationUpserted', { industry: text(101) }, 'industry'],
    ['ApplicationDefinitionUpserted', { communityId: null }, 'communityId'],
  ])('given a %s with %j, then it is refused at %j', (type, change, field) => {
    const path = refusedAt(type, change);
    expect(path).not.toBeNull();
    expect(path?.join('.')).toBe(field === '' ? 'data' : `data.${field}`);
  });
});

describe('directory batches', () => {
  const event = { type: 'CommunityMemberRemoved', data: valid.CommunityMemberRemoved };

  it.each([1, 1000])('given %p events, then the batch is accepted', (n) => {
    expect(directoryBatchSchema.safeParse({ events: Array.from({ length: n }, () => event) }).success).toBe(true);
  });

  it.each<[string, unknown]>([
    ['no event', { events: [] }],
    ['1001 events', { events: Array.from({ length: 1001 }, () => event) }],
    ['a field besides events', { events: [event], from: 'platform' }],
    ['one invalid event', { events: [event, { type: 'CommunityMemberRemoved', data: { communityId: 0, userId: 1 } }] }],
  ])('given %s, then the batch is refused', (_what, batch) => {
    expect(directoryBatchSchema.safeParse(batch).success).toBe(false);
  });
});
