/**
 * What an API process keeps of the directory (a caller's viewer, their user record, the names of
 * communities) stands only while the directory stays as it was, whoever changes it. Real
 * processes on one DATA_DIR: a projector, and two API processes with remembered answers off
 * (READ_MEMO=off), so what is kept is the directory's own facts, not a remembered answer. A change
 * sent through one API process, projected by the projector, shows in the other's next answer.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { mintSessionToken } from '../../src/infra/auth/session-verifier';
import { demo, demoDirectory } from '../support/demo-directory';
import { startService, stop, type Running } from '../support/service-process';

describe('directory facts kept by an API process, changed through another', () => {
  jest.setTimeout(120_000);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'prs-directory-'));
  const secrets = {
    AUTH_JWT_SECRET: 'directory-test-secret-'.padEnd(48, 'x'),
    DIRECTORY_SYNC_TOKEN: 'directory-test-token-'.padEnd(48, 'y'),
  };
  const env = { DATA_DIR: dataDir, READ_MEMO: 'off', ...secrets };
  const running: Running[] = [];
  afterAll(async () => {
    await Promise.all(running.map((r) => stop(r, 'SIGKILL')));
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const internal = { 'content-type': 'application/json', 'x-directory-token': secrets.DIRECTORY_SYNC_TOKEN };
  const directory = async (via: Running, events: readonly { type: string; data: Record<string, unknown> }[]) => {
    const res = await fetch(`${via.url}/internal/directory/events`, {
      method: 'POST',
      headers: internal,
      body: JSON.stringify({ events }),
    });
    expect(res.status).toBe(200);
  };
  const headersOf = async (userId: number) => ({
    'content-type': 'application/json',
    authorization: `Bearer ${await mintSessionToken(secrets.AUTH_JWT_SECRET, { userId })}`,
  });
  type Listed = {
    canEditResources: boolean;
    resources: { list: { id: number; currentlySharedWith: { communityId: number; communityName: string }[] }[] };
  };
  const list = async (via: Running, userId: number): Promise<Listed> => {
    const res = await fetch(`${via.url}/api/Project/GetResourceList`, {
      method: 'POST',
      headers: await headersOf(userId),
      body: JSON.stringify({ projectId: demo.projects.solar, communityId: demo.communities.public1, take: 1000 }),
    });
    expect(res.status).toBe(200);
    return (await res.json()) as Listed;
  };
  const DAN = demo.users.member1;

  it('given Dan on the team and a Team resource he sees through api1, when he leaves the team and the community it is shared with is renamed through api2, then api1 answers both changes on his next request', async () => {
    // given
    const projector = await startService({ ...env, ROLE: 'projector' });
    running.push(projector);
    const api1 = await startService({ ...env, ROLE: 'api' });
    running.push(api1);
    const api2 = await startService({ ...env, ROLE: 'api' });
    running.push(api2);
    await directory(api2, demoDirectory.events);
    await directory(api2, [
      { type: 'ProjectMemberSet', data: { projectId: demo.projects.solar, userId: DAN, role: 'team' } },
    ]);
    const saved = await fetch(`${api2.url}/api/Resource/SaveProjectResource`, {
      method: 'POST',
      headers: await headersOf(demo.users.team),
      body: JSON.stringify({
        id: 0,
        name: 'Team notes',
        resourceUrl: 'https://example.org/notes.pdf',
        privacyLevel: 3,
        communityProjectId: demo.communityProjects.solarIn1,
      }),
    });
    expect(saved.status).toBe(200);
    const { id } = (await saved.json()) as { id: number };
    // Shared by the admin of the owning community.
    const shared = await fetch(`${api2.url}/api/Privacy/SaveResourcePrivacy`, {
      method: 'POST',
      headers: await headersOf(demo.users.admin1),
      body: JSON.stringify({
        resourceId: id,
        sharesToUpsert: [{ communityId: demo.communities.public3, privacyLevel: 1 }],
      }),
    });
    expect(shared.status).toBe(200);
    const sharedWith = (listed: Listed) =>
      listed.resources.list.find((r) => r.id === id)?.currentlySharedWith.map((s) => s.communityName);
    for (let i = 0; i < 3; i++) {
      const seen = await list(api1, DAN);
      expect(seen.resources.list.map((r) => r.id)).toContain(id);
      expect(seen.canEditResources).toBe(true);
      expect(sharedWith(seen)).toEqual(['Northern Lights']);
    }

    // when
    await directory(api2, [
      { type: 'ProjectMemberRemoved', data: { projectId: demo.projects.solar, userId: DAN } },
      {
        type: 'CommunityUpserted',
        data: { communityId: demo.communities.public3, name: 'Southern Lights', visibility: 'public' },
      },
    ]);

    // then
    const after = await list(api1, DAN);
    expect(after.resources.list.map((r) => r.id)).not.toContain(id);
    expect(after.canEditResources).toBe(false);
    expect(sharedWith(await list(api1, demo.users.team))).toEqual(['Southern Lights']);
  });
});
