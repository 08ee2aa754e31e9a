import { samples } from '../support/file-samples';
import type { TestServer } from '../support/test-server';
import { startTestServer } from '../support/test-server';
import { fileApi } from '../support/upload-client';

/**
 * The leak property: random directory states and random privacy changes; after every
 * step, for every caller and every view, what GetResourceList and GetResourcePrivacy show, and which
 * uploaded files GET /api/File/Download serves, must be exactly what a naive reading of docs/api.md and
 * docs/api.md allows. The rules below are written from those documents, on purpose without importing
 * anything from src/domain.
 *
 * Some resources are file resources: W uploads a small PNG and saves its path as `resourceUrl`
 * (several resources may share one path); callers upload files of their own that nothing may
 * reference. docs/api.md "Files": a file is served only to callers who can see a resource that
 * references its path, or to its uploader while nothing references it; deleting the last resource
 * that references a path deletes the file.
 *
 * LEAK_STEPS=10000 for the long run (default 150); LEAK_SEED=<n> replays a failure.
 */
const STEPS = Number(process.env.LEAK_STEPS ?? 150);
const SEED = Number(process.env.LEAK_SEED ?? Math.floor(Math.random() * 2 ** 31));

// The world: project P in communities 1 and 2 (not 3); writer W is on P's team and admin of all three.
const P = 10;
const W = 1;
const CALLERS = [2, 3, 4, 5, 6];
const COMMUNITIES = [1, 2, 3];
const P_COMMUNITIES = [1, 2];
const COMMUNITY_PROJECT: Record<number, number> = { 1: 1001, 2: 1002 };
const TEAM_CIRCLE = 100;
const MENTORS_CIRCLE = 101;
const PROJECT_CIRCLE = 110;
const COMMUNITY_CIRCLE: Record<number, number> = { 1: 201, 2: 202, 3: 203 };
const PLAIN_CIRCLES = [PROJECT_CIRCLE, 201, 202, 203];
const MAX_RESOURCES = 4;
/**
 * W's uploads still stored at once, callers' uploads in all (never referenced, so never deleted), and how
 * many deleted ones keep being asked for (always 404).
 */
const MAX_LIVE_UPLOADS = 5;
const MAX_CALLER_UPLOADS = 2;
const DEAD_UPLOADS_CHECKED = 3;
const LINK_URL = 'https://example.org/r';

type Membership = { role: 'member' | 'admin'; status: 'pending' | 'approved' };
type Block = { level: number; circles: Set<number> };
type ModelResource = { id: number; owning: number | null; url: string; own: Block; shares: Map<number, Block> };
type Upload = { path: string; uploader: number; deleted: boolean };

/** A small seeded generator, so that a failing run can be replayed with LEAK_SEED. */
function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T;
  const subset = <T>(items: readonly T[]): T[] => items.filter(() => next() < 0.4);
  return { next, int, pick, subset };
}

class World {
  projectPublic = false;
  readonly communityPublic = new Map<number, boolean>(COMMUNITIES.map((c) => [c, false]));
  readonly members = new Map<number, Map<number, Membership>>();
  readonly projectRole = new Map<number, 'team' | 'mentor'>();
  readonly circleMembers = new Map<number, Set<number>>(PLAIN_CIRCLES.map((c) => [c, new Set()]));
  readonly circleActive = new Map<number, boolean>(PLAIN_CIRCLES.map((c) => [c, true]));
  readonly resources = new Map<number, ModelResource>();
  readonly uploads: Upload[] = [];

  // --- the rules, read naively ----------------------------------------------------------------------
  approved = (u: number, c: number) => this.members.get(u)?.get(c)?.status === 'approved';
  admin = (u: number, c: number) => this.approved(u, c) && this.members.get(u)?.get(c)?.role === 'admin';
  team = (u: number) => this.projectRole.get(u) === 'team';
  mentor = (u: number) => this.projectRole.get(u) === 'mentor';
  /** Built-in circles hold the team and the mentors, live; other circles count while active. */
  inCircle = (u: number, circle: number) =>
    circle === TEAM_CIRCLE
      ? this.team(u)
      : circle === MENTORS_CIRCLE
        ? this.mentor(u)
        : this.circleActive.get(circle) === true && this.circleMembers.get(circle)?.has(u) === true;
  /** Every resource is W's, who stays on the team: editors are the team and the owning admins. */
  editor = (u: number, r: ModelResource) => this.team(u) || (r.owning !== null && this.admin(u, r.owning));
  reach = (u: number, view: number | null) =>
    view === null
      ? this.projectPublic || this.team(u) || this.mentor(u) || P_COMMUNITIES.some((c) => this.approved(u, c))
      : this.communityPublic.get(view) === true || this.approved(u, view);

  /** The block that governs a resource in a view, or undefined when it is not in that view. */
  governing(r: ModelResource, view: number | null): Block | undefined {
    if (view === null) return r.owning === null ? r.own : undefined;
    const share = r.shares.get(view);
    if (share) return share;
    if (r.owning === view) return r.own;
    if (r.owning === null && P_COMMUNITIES.includes(view)) return r.own;
    return undefined;
  }

  admits(u: number, block: Block, view: number | null): boolean {
    switch (block.level) {
      case 1:
        return this.reach(u, view);
      case 2:
        return view !== null && this.approved(u, view);
      case 3:
        return this.team(u);
      case 4:
        return [...block.circles].some((c) => this.inCircle(u, c));
      case 5:
        return this.team(u) || this.mentor(u);
      default:
        throw new Error(`model holds level ${block.level}`);
    }
  }

  sees(u: number, r: ModelResource, view: number | null): boolean {
    const block = this.governing(r, view);
    if (!block) return false;
    return this.editor(u, r) || (view !== null && this.admin(u, view)) || this.admits(u, block, view);
  }

  expectedList(u: number, view: number | null) {
    return [...this.resources.values()]
      .filter((r) => this.sees(u, r, view))
      .map((r) => ({ id: r.id, effectivePrivacyLevel: this.governing(r, view)!.level, canEdit: this.editor(u, r) }))
      .sort((a, b) => a.id - b.id);
  }

  /** Whether the caller may read the resource at all: edit it, or see it in some view. */
  readable = (u: number, r: ModelResource) =>
    this.editor(u, r) || [null, ...COMMUNITIES].some((view) => this.sees(u, r, view));

  referencing = (path: string) => [...this.resources.values()].filter((r) => r.url === path);

  expectedPrivacy(u: number, r: ModelResource) {
    if (!this.readable(u, r)) return { status: 404 };
    const seesAllShares = this.team(u) || (r.owning !== null && this.admin(u, r.owning));
    const circlesOf = (block: Block, shown: boolean) =>
      shown && block.level === 4 ? [...block.circles].sort((a, b) => a - b) : [];
    return {
      status: 200,
      owner: { privacyLevel: r.own.level, circles: circlesOf(r.own, this.editor(u, r)) },
      shares: [...r.shares]
        .filter(([c]) => seesAllShares || this.admin(u, c))
        .sort(([a], [b]) => a - b)
        .map(([c, block]) => ({
          communityId: c,
          privacyLevel: block.level,
          circles: circlesOf(block, this.editor(u, r) || this.admin(u, c)),
        })),
      canEdit: this.team(u) || (r.owning !== null && this.admin(u, r.owning)),
    };
  }

  /** docs/api.md "Files": a resource the caller can see references it, or they uploaded it and nothing does. */
  expectedDownload(u: number, upload: Upload): number {
    if (upload.deleted) return 404;
    const referencing = this.referencing(upload.path);
    if (referencing.length === 0) return upload.uploader === u ? 200 : 404;
    return referencing.some((r) => this.readable(u, r)) ? 200 : 404;
  }

  /** The uploads asked for after each step: every stored one and the last few deleted ones. */
  checkedUploads(): Upload[] {
    return [
      ...this.uploads.filter((f) => !f.deleted),
      ...this.uploads.filter((f) => f.deleted).slice(-DEAD_UPLOADS_CHECKED),
    ];
  }
}

type DirectoryEvent = { type: string; data: Record<string, unknown> };

describe('leak property: what callers are shown equals what the rules allow', () => {
  let server: TestServer;
  let files: ReturnType<typeof fileApi>;
  const world = new World();
  const rng = random(SEED);
  const log: string[] = [];

  beforeAll(async () => {
    server = await startTestServer();
    const events: DirectoryEvent[] = [
      ...[W, ...CALLERS].map((userId) => ({
        type: 'UserUpserted',
        data: { userId, name: `User ${userId}`, status: 'active' },
      })),
      ...COMMUNITIES.map((communityId) => ({
        type: 'CommunityUpserted',
        data: { communityId, name: `Community ${communityId}`, visibility: 'private' },
      })),
      {
        type: 'ProjectUpserted',
        data: {
          projectId: P,
          name: 'Project',
          visibility: 'private',
          teamCircleId: TEAM_CIRCLE,
          mentorsCircleId: MENTORS_CIRCLE,
        },
      },
      ...P_COMMUNITIES.map((c) => ({
        type: 'CommunityProjectUpserted',
        data: { communityProjectId: COMMUNITY_PROJECT[c], communityId: c, projectId: P },
      })),
      { type: 'ProjectMemberSet', data: { projectId: P, userId: W, role: 'team' } },
      ...COMMUNITIES.map((communityId) => ({
        type: 'CommunityMemberSet',
        data: { communityId, userId: W, role: 'admin', status: 'approved' },
      })),
      ...[TEAM_CIRCLE, MENTORS_CIRCLE, PROJECT_CIRCLE].map((circleId) => circleEvent(circleId, true)),
      ...COMMUNITIES.map((c) => circleEvent(COMMUNITY_CIRCLE[c]!, true)),
    ];
    expect((await server.directory(events)).status).toBe(200);
    world.projectRole.set(W, 'team');
    world.members.set(W, new Map(COMMUNITIES.map((c) => [c, { role: 'admin', status: 'approved' }])));
    files = fileApi(server);
  });
  afterAll(() => server.close());

  function circleEvent(circleId: number, isActive: boolean): DirectoryEvent {
    const communityId = Object.entries(COMMUNITY_CIRCLE).find(([, id]) => id === circleId)?.[0];
    return {
      type: 'CircleUpserted',
      data: {
        circleId,
        name: `Circle ${circleId}`,
        longName: `Circle ${circleId}`,
        isActive,
        projectId: communityId ? null : P,
        communityId: communityId ? Number(communityId) : null,
      },
    };
  }

  async function feed(event: DirectoryEvent, apply: () => void) {
    const res = await server.directory([event]);
    if (res.status !== 200) throw new Error(`directory step refused: ${res.text}`);
    apply();
  }

  async function directoryStep(): Promise<string> {
    const u = rng.pick(CALLERS);
    const c = rng.pick(COMMUNITIES);
    switch (rng.int(7)) {
      case 0: {
        const m: Membership = {
          role: rng.next() < 0.3 ? 'admin' : 'member',
          status: rng.next() < 0.25 ? 'pending' : 'approved',
        };
        await feed({ type: 'CommunityMemberSet', data: { communityId: c, userId: u, ...m } }, () => {
          if (!world.members.has(u)) world.members.set(u, new Map());
          world.members.get(u)!.set(c, m);
        });
        return `member ${u} of ${c}: ${m.role}/${m.status}`;
      }
      case 1:
        await feed({ type: 'CommunityMemberRemoved', data: { communityId: c, userId: u } }, () =>
          world.members.get(u)?.delete(c),
        );
        return `member ${u} leaves ${c}`;
      case 2: {
        if (rng.next() < 0.35) {
          await feed({ type: 'ProjectMemberRemoved', data: { projectId: P, userId: u } }, () =>
            world.projectRole.delete(u),
          );
          return `${u} leaves the project`;
        }
        const role = rng.next() < 0.5 ? 'team' : 'mentor';
        await feed({ type: 'ProjectMemberSet', data: { projectId: P, userId: u, role } }, () =>
          world.projectRole.set(u, role),
        );
        return `${u} is ${role}`;
      }
      case 3: {
        const circle = rng.pick(PLAIN_CIRCLES);
        if (rng.next() < 0.4) {
          await feed({ type: 'CircleMemberRemoved', data: { circleId: circle, userId: u } }, () =>
            world.circleMembers.get(circle)!.delete(u),
          );
          return `${u} leaves circle ${circle}`;
        }
        await feed({ type: 'CircleMemberSet', data: { circleId: circle, userId: u } }, () =>
          world.circleMembers.get(circle)!.add(u),
        );
        return `${u} joins circle ${circle}`;
      }
      case 4: {
        const circle = rng.pick(PLAIN_CIRCLES);
        const active = !world.circleActive.get(circle);
        await feed(circleEvent(circle, active), () => world.circleActive.set(circle, active));
        return `circle ${circle} active=${active}`;
      }
      case 5: {
        const isPublic = !world.communityPublic.get(c);
        await feed(
          {
            type: 'CommunityUpserted',
            data: { communityId: c, name: `Community ${c}`, visibility: isPublic ? 'public' : 'private' },
          },
          () => world.communityPublic.set(c, isPublic),
        );
        return `community ${c} public=${isPublic}`;
      }
      default: {
        const isPublic = !world.projectPublic;
        await feed(
          {
            type: 'ProjectUpserted',
            data: {
              projectId: P,
              name: 'Project',
              visibility: isPublic ? 'public' : 'private',
              teamCircleId: TEAM_CIRCLE,
              mentorsCircleId: MENTORS_CIRCLE,
            },
          },
          () => (world.projectPublic = isPublic),
        );
        return `project public=${isPublic}`;
      }
    }
  }

  const token = () => server.sessionToken(W);
  const circlesFor = (community: number | null) => [
    TEAM_CIRCLE,
    MENTORS_CIRCLE,
    PROJECT_CIRCLE,
    ...(community === null ? [] : [COMMUNITY_CIRCLE[community]!]),
  ];
  const grant = (circleId: number) => {
    const community = Object.entries(COMMUNITY_CIRCLE).find(([, id]) => id === circleId)?.[0];
    return { circleId, projectId: community ? null : P, communityId: community ? Number(community) : null };
  };

  /** A block change for a level; circles are added only at Custom, and some granted ones removed. */
  function blockChange(current: Block | undefined, level: number, community: number | null) {
    const add = level === 4 ? rng.subset(circlesFor(community)) : [];
    const remove = level === 4 && current ? rng.subset([...current.circles].filter((c) => !add.includes(c))) : [];
    const apply = (block: Block | undefined): Block => {
      const circles = new Set(block && block.level === 4 && level === 4 ? block.circles : []);
      for (const c of remove) circles.delete(c);
      for (const c of add) circles.add(c);
      return { level, circles };
    };
    return { body: { privacyLevel: level, circlesToAdd: add.map(grant), circlesToRemove: remove.map(grant) }, apply };
  }

  /** A small real PNG uploaded over HTTP; the model learns its path once the service stored it. */
  async function upload(uploader: number): Promise<Upload> {
    const path = await files.uploaded(uploader, `step ${world.uploads.length + 1}.png`, 'image/png', samples.png());
    const stored: Upload = { path, uploader, deleted: false };
    world.uploads.push(stored);
    return stored;
  }

  /**
   * Which `resourceUrl` a new resource gets: a link, one of W's stored uploads (fresh or shared), or,
   * refused, someone else's.
   */
  async function resourceUrlForCreate(): Promise<{ url: string; refused: boolean }> {
    const draw = rng.next();
    if (draw < 0.4) return { url: LINK_URL, refused: false };
    const others = world.uploads.filter(
      (f) => !f.deleted && f.uploader !== W && world.referencing(f.path).length === 0,
    );
    if (draw < 0.47 && others.length > 0) return { url: rng.pick(others).path, refused: true };
    const mine = world.uploads.filter((f) => !f.deleted && f.uploader === W);
    if (mine.length === 0 || (rng.next() < 0.3 && mine.length < MAX_LIVE_UPLOADS))
      return { url: (await upload(W)).path, refused: false };
    return { url: rng.pick(mine).path, refused: false };
  }

  async function resourceStep(): Promise<string> {
    const resources = [...world.resources.values()];
    if (rng.next() < 0.12) {
      const picked = rng.pick([W, ...CALLERS]);
      const uploader =
        picked !== W && world.uploads.filter((f) => f.uploader !== W).length < MAX_CALLER_UPLOADS ? picked : W;
      if (uploader !== W || world.uploads.filter((f) => !f.deleted && f.uploader === W).length < MAX_LIVE_UPLOADS) {
        const stored = await upload(uploader);
        return `${uploader} uploads ${stored.path}: 200`;
      }
    }
    const kind =
      resources.length === 0 ? 0 : rng.int(resources.length < MAX_RESOURCES ? 5 : 4) === 4 ? 0 : 1 + rng.int(4);
    if (kind === 0) {
      const owning = rng.pick([null, ...P_COMMUNITIES]);
      const level = 1 + rng.int(5);
      const { url, refused } = await resourceUrlForCreate();
      const scopeFields =
        owning === null
          ? { projectId: P, communityProjectId: 0, communityId: 0 }
          : { communityProjectId: COMMUNITY_PROJECT[owning] };
      const res = await server.post<{ id: number }>(
        '/api/Resource/SaveProjectResource',
        { id: 0, name: 'R', resourceUrl: url, privacyLevel: level, ...scopeFields },
        { token: await token() },
      );
      // An upload path must be the caller's own, or referenced by a resource they may edit.
      if (refused && res.status !== 400)
        throw new Error(`LEAK_SEED=${SEED}: W saved a resource on someone else's upload ${url}: ${res.status}`);
      if (res.status === 200)
        world.resources.set(res.body.id, {
          id: res.body.id,
          owning,
          url,
          own: { level, circles: new Set() },
          shares: new Map(),
        });
      return `create in ${owning ?? 'project'} at ${level} on ${url}: ${res.status}`;
    }
    const r = rng.pick(resources);
    if (kind === 1) {
      const res = await server.get(`/api/Resource/RemoveProjectResource?id=${r.id}`, { token: await token() });
      if (res.status === 200) {
        world.resources.delete(r.id);
        // Deleting the last resource that references an upload deletes the file.
        const released = world.uploads.find((f) => f.path === r.url);
        if (released && world.referencing(released.path).length === 0) released.deleted = true;
      }
      return `remove ${r.id}: ${res.status}`;
    }
    if (kind === 2) {
      const level = 1 + rng.int(5);
      const change = blockChange(r.own, level, r.owning);
      const res = await server.post(
        '/api/Privacy/SaveResourcePrivacy',
        { resourceId: r.id, owner: change.body },
        { token: await token() },
      );
      if (res.status === 200) r.own = change.apply(r.own);
      return `owner of ${r.id} -> ${JSON.stringify(change.body)}: ${res.status}`;
    }
    const candidates = (r.owning === null ? P_COMMUNITIES : COMMUNITIES).filter((c) => c !== r.owning);
    const c = rng.pick(candidates);
    if (kind === 3) {
      const level = 1 + rng.int(5);
      const change = blockChange(r.shares.get(c), level, c);
      const res = await server.post(
        '/api/Privacy/SaveResourcePrivacy',
        { resourceId: r.id, sharesToUpsert: [{ communityId: c, ...change.body }] },
        { token: await token() },
      );
      if (res.status === 200) r.shares.set(c, change.apply(r.shares.get(c)));
      return `share ${r.id} into ${c} -> ${JSON.stringify(change.body)}: ${res.status}`;
    }
    const res = await server.post(
      '/api/Privacy/UnshareResourceFromCommunity',
      { resourceId: r.id, communityId: c },
      { token: await token() },
    );
    if (res.status === 200) r.shares.delete(c);
    return `unshare ${r.id} from ${c}: ${res.status}`;
  }

  async function observed(u: number) {
    const tokenOf = await server.sessionToken(u);
    const lists = await Promise.all(
      [null, ...COMMUNITIES].map(async (view) => {
        const res = await server.post<{
          resources: { list: { id: number; effectivePrivacyLevel: number; canEdit: boolean }[] };
        }>(
          '/api/Project/GetResourceList',
          { projectId: P, ...(view === null ? {} : { communityId: view }), take: 1000 },
          { token: tokenOf },
        );
        if (res.status !== 200) return { view, status: res.status };
        const list = res.body.resources.list
          .map((r) => ({ id: r.id, effectivePrivacyLevel: r.effectivePrivacyLevel, canEdit: r.canEdit }))
          .sort((a, b) => a.id - b.id);
        return { view, list };
      }),
    );
    const privacy = await Promise.all(
      [...world.resources.keys()].map(async (id) => {
        const res = await server.get(`/api/Privacy/GetResourcePrivacy?resourceId=${id}`, { token: tokenOf });
        if (res.status !== 200) return { id, status: res.status };
        const body = res.body as {
          owner: { privacyLevel: number; circles: { privacyCircles: { id: number }[] }[] };
          shares: { communityId: number; privacyLevel: number; circles: { privacyCircles: { id: number }[] }[] }[];
          canEdit: boolean;
        };
        const ids = (groups: { privacyCircles: { id: number }[] }[]) =>
          groups.flatMap((g) => g.privacyCircles.map((c) => c.id)).sort((a, b) => a - b);
        return {
          id,
          status: 200,
          owner: { privacyLevel: body.owner.privacyLevel, circles: ids(body.owner.circles) },
          shares: body.shares.map((s) => ({
            communityId: s.communityId,
            privacyLevel: s.privacyLevel,
            circles: ids(s.circles),
          })),
          canEdit: body.canEdit,
        };
      }),
    );
    return { lists, privacy };
  }

  function expected(u: number) {
    return {
      lists: [null, ...COMMUNITIES].map((view) => ({ view, list: world.expectedList(u, view) })),
      privacy: [...world.resources.values()].map((r) => ({ id: r.id, ...world.expectedPrivacy(u, r) })),
    };
  }

  /** GET /api/File/Download for every upload asked for: its status, and on 200 whether the bytes are the upload's. */
  async function observedDownloads(u: number) {
    return Promise.all(
      world.checkedUploads().map(async (f) => {
        const res = await files.download(u, f.path);
        return {
          path: f.path,
          status: res.status,
          ...(res.status === 200 ? { intact: res.bytes.equals(samples.png()) } : {}),
        };
      }),
    );
  }

  const expectedDownloads = (u: number) =>
    world.checkedUploads().map((f) => {
      const status = world.expectedDownload(u, f);
      return { path: f.path, status, ...(status === 200 ? { intact: true } : {}) };
    });

  it(
    `given ${STEPS} random steps (seed ${SEED}), then after each one every caller is shown exactly what the rules allow`,
    async () => {
      // Downloads by callers other than W: served and refused, on a referenced path and on an unreferenced one.
      const seen = new Set<string>();
      for (let step = 1; step <= STEPS; step++) {
        log.push(rng.next() < 0.55 ? await directoryStep() : await resourceStep());
        const [shown, downloads] = await Promise.all([
          Promise.all(CALLERS.map(observed)),
          Promise.all([W, ...CALLERS].map(observedDownloads)),
        ]);
        for (const [i, u] of [W, ...CALLERS].entries()) {
          // W (team, the writer and main uploader) is asked only about downloads: the team sees everything.
          const got = { ...(u === W ? {} : shown[i - 1]), downloads: downloads[i] };
          const want = { ...(u === W ? {} : expected(u)), downloads: expectedDownloads(u) };
          if (JSON.stringify(got) !== JSON.stringify(want)) {
            const context = `LEAK_SEED=${SEED}, step ${step}, caller ${u}\nlast steps:\n  ${log.slice(-12).join('\n  ')}`;
            expect({ context, ...got }).toEqual({ context, ...want });
          }
          if (u === W) continue;
          for (const d of downloads[i]!)
            seen.add(`${d.status} ${world.referencing(d.path).length > 0 ? 'referenced' : 'unreferenced'}`);
        }
      }
      // The property only means something if the walk actually changed privacy along the way,
      // and if downloads were both served and refused.
      const applied = log.filter((line) => line.endsWith(': 200')).length;
      expect(applied).toBeGreaterThan(STEPS / 10);
      expect(log.some((line) => / on resource_files\/.*: 200$/.test(line))).toBe(true);
      expect([...seen].sort()).toEqual(
        expect.arrayContaining(['200 referenced', '404 referenced', '404 unreferenced']),
      );
    },
    // About 0.1–0.2 s a step alone; two test files run at once, and beside a suite of several
    // processes a step has taken 0.6 s: the bound is for a hang, not for a slow machine.
    Math.max(120_000, STEPS * 1_600),
  );
});
