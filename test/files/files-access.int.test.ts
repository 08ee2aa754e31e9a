import fs from 'node:fs';
import path from 'node:path';
import { sweepOrphans } from '../../src/files/file-lifecycle';
import { demo, demoDirectory } from '../support/demo-directory';
import { samples } from '../support/file-samples';
import { fieldsOf, newResource, resourceApi, scope } from '../support/resource-api';
import { serverForSuite } from '../support/suite-server';
import { rebuildAndWait } from '../support/rebuild-job';
import { fileApi } from '../support/upload-client';

/**
 * GET /api/File/Download, saving a file resource, and the file lifecycle (docs/api.md "Upload"),
 * over HTTP on the demo directory. Project 10 is in communities 1 (public) and 2 (private).
 */
const { users, projects, communityProjects } = demo;
const P = projects.solar;

describe('files: download, file resources, lifecycle', () => {
  const server = serverForSuite();
  const files = fileApi(server);
  const api = resourceApi(server);

  const onDisk = (stored: string): boolean => fs.existsSync(path.join(server.dataDir, 'files', ...stored.split('/')));
  const fileEvents = async (stored: string) =>
    (await server.services.eventStore.readStream(`file-${stored.split('/')[1]}`)).map((e) => ({
      type: e.type,
      data: e.data,
    }));

  describe('given an upload nothing references yet', () => {
    let stored: string;
    beforeAll(async () => {
      stored = await files.uploaded(users.team, 'Résumé final 100%.pdf', 'application/pdf', samples.pdf());
    });

    it('the uploader downloads it with safe headers', async () => {
      const res = await files.download(users.team, stored);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/pdf');
      expect(res.headers.get('content-disposition')).toBe(
        `attachment; filename="R_sum_ final 100_.pdf"; filename*=UTF-8''R%C3%A9sum%C3%A9%20final%20100%25.pdf`,
      );
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('cache-control')).toBe('private');
      expect(res.headers.get('accept-ranges')).toBe('bytes');
      expect(res.bytes.equals(samples.pdf())).toBe(true);
    });

    it('anyone else gets 404, as for a path that does not exist', async () => {
      for (const userId of [users.admin1, users.outsider, users.mentor]) {
        const res = await files.download(userId, stored);
        expect(res.status).toBe(404);
        expect(res.json().type).toBe('/problems/not-found');
      }
      const unknown = await files.download(users.team, 'resource_files/AAAAAAAAAAAAAAAAAAAAAA/none.pdf');
      expect(unknown.status).toBe(404);
    });

    it.each([
      '../../events.sqlite',
      'resource_files/../../events.sqlite',
      '/etc/passwd',
      'resource_files/%2e%2e/x.pdf',
      '.staging/x/y',
    ])('a path that escapes (%s) is 404 too', async (bad) => {
      expect((await files.download(users.team, bad)).status).toBe(404);
    });

    it('given its stored file replaced by a link to a file outside the store, then the download is refused and nothing of that file is sent', async () => {
      const planted = await files.uploaded(users.team, 'planted.pdf', 'application/pdf', samples.pdf());
      const onDiskPath = path.join(server.dataDir, 'files', ...planted.split('/'));
      const outside = path.join(server.dataDir, 'outside-the-store.txt');
      fs.writeFileSync(outside, 'not an upload: the server must not send this');
      fs.rmSync(onDiskPath);
      fs.symlinkSync(outside, onDiskPath);

      const res = await files.download(users.team, planted);

      expect(res.status).toBe(500);
      expect(res.json().type).toBe('/problems/internal');
      expect(res.bytes.toString('utf8')).not.toContain('not an upload');
    });

    it('without path, 400 on path', async () => {
      const res = await server.get('/api/File/Download', { token: await server.sessionToken(users.team) });
      expect(res.status).toBe(400);
      expect(fieldsOf(res.body)).toEqual(['path']);
    });

    it('FileUploaded is on its own stream, with who and what', async () => {
      expect(await fileEvents(stored)).toEqual([
        {
          type: 'FileUploaded',
          data: expect.objectContaining({
            path: stored,
            name: 'Résumé final 100%.pdf',
            size: samples.pdf().length,
            contentType: 'application/pdf',
            uploadedBy: users.team,
          }),
        },
      ]);
    });
  });

  describe('Range requests', () => {
    const data = Buffer.from('0123456789abcdefghij');
    let stored: string;
    beforeAll(async () => {
      stored = await files.uploaded(users.team, 'range.txt', 'text/plain', data);
    });

    it.each<[string, number, number]>([
      ['bytes=0-9', 0, 9],
      ['bytes=15-', 15, 19],
      ['bytes=-5', 15, 19],
      ['bytes=18-1000', 18, 19],
    ])('Range %s answers 206 with those bytes and Content-Range', async (range, start, end) => {
      const res = await files.download(users.team, stored, { range });
      expect(res.status).toBe(206);
      expect(res.headers.get('content-range')).toBe(`bytes ${start}-${end}/${data.length}`);
      expect(res.bytes.equals(data.subarray(start, end + 1))).toBe(true);
    });

    it.each(['bytes=20-', 'bytes=100-200', 'bytes=-0'])(
      'Range %s answers 416 with Content-Range bytes */size',
      async (range) => {
        const res = await files.download(users.team, stored, { range });
        expect(res.status).toBe(416);
        expect(res.headers.get('content-range')).toBe(`bytes */${data.length}`);
        expect(res.json().type).toBe('/problems/range-not-satisfiable');
      },
    );

    it("given If-Range with the file's ETag, then the range; with another tag, a weak one or a date, then 200 with the whole file", async () => {
      const { headers } = await files.download(users.team, stored);
      const etag = headers.get('etag') as string;
      const same = await files.download(users.team, stored, { range: 'bytes=0-4', 'if-range': etag });
      expect([same.status, same.bytes.toString()]).toEqual([206, '01234']);
      for (const ifRange of ['"another"', `W/${etag}`, 'Tue, 01 Dec 2026 00:00:00 GMT']) {
        const res = await files.download(users.team, stored, { range: 'bytes=0-4', 'if-range': ifRange });
        expect([ifRange, res.status, res.headers.get('content-range')]).toEqual([ifRange, 200, null]);
        expect(res.bytes.equals(data)).toBe(true);
      }
    });

    it('a multi-range or unparsable Range is ignored: 200 with the whole file', async () => {
      for (const range of ['bytes=0-1,5-6', 'items=0-1', 'bytes=5-2']) {
        const res = await files.download(users.team, stored, { range });
        expect(res.status).toBe(200);
        expect(res.bytes.equals(data)).toBe(true);
      }
    });
  });

  describe('saving a file resource', () => {
    it('given a made-up upload path, then 400 on resourceUrl', async () => {
      for (const resourceUrl of [
        'a/b/<img src=x onerror=alert(1)>.png',
        'resource_files/AAAAAAAAAAAAAAAAAAAAAA/logo.png',
      ]) {
        const res = await api.save(users.team, newResource(scope.project(P), { resourceUrl }));
        expect(res.status).toBe(400);
        expect(fieldsOf(res.body)).toEqual(['resourceUrl']);
      }
    });

    it("given someone else's upload nothing references, then 400 on resourceUrl", async () => {
      const theirs = await files.uploaded(users.admin1, 'logo.png', 'image/png', samples.png());
      const res = await api.save(users.team, newResource(scope.project(P), { resourceUrl: theirs }));
      expect(res.status).toBe(400);
      expect(fieldsOf(res.body)).toEqual(['resourceUrl']);
    });

    it('given my own image upload, then it is saved; resourceType and image come from the stored file', async () => {
      const mine = await files.uploaded(users.team, 'logo.png', 'image/png', samples.png());
      const res = await api.save(
        users.team,
        newResource(scope.project(P), { resourceUrl: mine, resourceType: 3, image: 'https://evil.example/x.png' }),
      );
      expect(res.status).toBe(200);
      expect(res.body.resourceType).toBe(1);
      expect(res.body.resourceUrl).toBe(mine);
      const pdf = await files.uploaded(users.team, 'plan.pdf', 'application/pdf', samples.pdf());
      expect((await api.save(users.team, newResource(scope.project(P), { resourceUrl: pdf }))).body.resourceType).toBe(
        3,
      );
    });

    it('given an upload referenced by a resource I may edit, then I may reference it too', async () => {
      const adminsFile = await files.uploaded(users.admin1, 'rules.pdf', 'application/pdf', samples.pdf());
      // Cleo (admin of community 1) attaches it to a community-project resource of community 1;
      // Ada (team of project 10) may edit every resource of the project, so she may reuse it.
      await api.create(
        users.admin1,
        newResource(scope.communityProject(communityProjects.solarIn1), { resourceUrl: adminsFile }),
      );
      const res = await api.save(users.team, newResource(scope.project(P), { resourceUrl: adminsFile }));
      expect(res.status).toBe(200);
      // The member, who may edit neither, may not.
      const member = await api.save(
        users.member1,
        newResource(scope.communityProject(communityProjects.solarIn1), { resourceUrl: adminsFile }),
      );
      expect(member.status === 400 || member.status === 403).toBe(true);
    });
  });

  describe('download through a resource', () => {
    let stored: string;
    beforeAll(async () => {
      stored = await files.uploaded(users.team, 'team-only.pdf', 'application/pdf', samples.pdf());
      // Level 3: the team only.
      await api.create(
        users.team,
        newResource(scope.communityProject(communityProjects.solarIn1), { resourceUrl: stored, privacyLevel: 3 }),
      );
    });

    it('a caller who can see the resource downloads the file', async () => {
      expect((await files.download(users.team, stored)).status).toBe(200);
      expect((await files.download(users.admin1, stored)).status).toBe(200); // admins see all of their community
    });

    it('a caller who cannot see any referencing resource gets 404', async () => {
      for (const userId of [users.member1, users.outsider, users.mentor, users.admin2]) {
        expect((await files.download(userId, stored)).status).toBe(404);
      }
    });

    it('once public, the member of the public community downloads it', async () => {
      const publicOne = await files.uploaded(users.team, 'public.pdf', 'application/pdf', samples.pdf());
      await api.create(
        users.team,
        newResource(scope.communityProject(communityProjects.solarIn1), { resourceUrl: publicOne, privacyLevel: 1 }),
      );
      expect((await files.download(users.member1, publicOne)).status).toBe(200);
      expect((await files.download(users.outsider, publicOne)).status).toBe(200); // community 1 is public
    });
  });

  describe('lifecycle', () => {
    it('deleting the last resource that references a file deletes it (FileDeleted, unreferenced), not before', async () => {
      const stored = await files.uploaded(users.team, 'shared.pdf', 'application/pdf', samples.pdf());
      const first = await api.create(users.team, newResource(scope.project(P), { resourceUrl: stored }));
      const second = await api.create(users.team, newResource(scope.project(P), { resourceUrl: stored }));
      expect((await api.remove(users.team, first.id)).status).toBe(200);
      expect(onDisk(stored)).toBe(true);
      expect((await files.download(users.team, stored)).status).toBe(200);
      expect((await api.remove(users.team, second.id)).status).toBe(200);
      expect(onDisk(stored)).toBe(false);
      expect((await files.download(users.team, stored)).status).toBe(404);
      expect((await fileEvents(stored)).map((e) => e.type)).toEqual(['FileUploaded', 'FileDeleted']);
      expect((await fileEvents(stored))[1]?.data).toEqual({ path: stored, reason: 'unreferenced' });
      // A deleted upload cannot be referenced again.
      const again = await api.save(users.team, newResource(scope.project(P), { resourceUrl: stored }));
      expect(again.status).toBe(400);
    });

    it('updating the resource to another URL deletes the file it referenced', async () => {
      const stored = await files.uploaded(users.team, 'old.pdf', 'application/pdf', samples.pdf());
      const created = await api.create(users.team, newResource(scope.project(P), { resourceUrl: stored }));
      const res = await api.save(users.team, {
        ...newResource({}),
        id: created.id,
        resourceUrl: 'https://example.org/new',
        privacyLevel: created.privacyLevel,
      });
      expect(res.status).toBe(200);
      expect(onDisk(stored)).toBe(false);
    });

    it('an update that keeps the URL keeps the file', async () => {
      const stored = await files.uploaded(users.team, 'keep.pdf', 'application/pdf', samples.pdf());
      const created = await api.create(users.team, newResource(scope.project(P), { resourceUrl: stored }));
      const res = await api.save(users.team, {
        ...newResource({}),
        id: created.id,
        resourceUrl: stored,
        privacyLevel: created.privacyLevel,
      });
      expect(res.status).toBe(200);
      expect(onDisk(stored)).toBe(true);
    });

    it('a rebuild of the read models does not resurrect a deleted file', async () => {
      const stored = await files.uploaded(users.team, 'gone.pdf', 'application/pdf', samples.pdf());
      const created = await api.create(users.team, newResource(scope.project(P), { resourceUrl: stored }));
      await api.remove(users.team, created.id);
      expect((await rebuildAndWait(server)).job.outcome).toBe('succeeded');
      expect((await server.services.stores.files.file(stored))?.deleted).toBe(true);
      expect((await files.download(users.team, stored)).status).toBe(404);
      expect((await api.save(users.team, newResource(scope.project(P), { resourceUrl: stored }))).status).toBe(400);
    });
  });
});

describe('the orphan sweeper (UPLOAD_ORPHAN_HOURS=24), with an injected clock', () => {
  const server = serverForSuite();
  const files = fileApi(server);
  const api = resourceApi(server);

  it('removes an upload nobody references once it is older than 24 hours, and only then; a referenced one stays', async () => {
    const orphan = await files.uploaded(users.team, 'orphan.pdf', 'application/pdf', samples.pdf());
    const used = await files.uploaded(users.team, 'used.pdf', 'application/pdf', samples.pdf());
    await api.create(users.team, newResource(scope.project(P), { resourceUrl: used }));
    const uploadedAt = new Date((await server.services.stores.files.file(orphan))?.uploadedAt ?? '');

    const early = await sweepOrphans(server.services, new Date(uploadedAt.getTime() + 23 * 3_600_000));
    expect(early.deleted).toEqual([]);
    expect((await files.download(users.team, orphan)).status).toBe(200);

    const late = await sweepOrphans(server.services, new Date(uploadedAt.getTime() + 25 * 3_600_000));
    expect(late.deleted).toEqual([orphan]);
    expect((await files.download(users.team, orphan)).status).toBe(404);
    expect((await files.download(users.team, used)).status).toBe(200);
    const events = await server.services.eventStore.readStream(`file-${orphan.split('/')[1]}`);
    expect(events.map((e) => [e.type, e.data])).toEqual([
      ['FileUploaded', expect.anything()],
      ['FileDeleted', { path: orphan, reason: 'orphaned' }],
    ]);
    expect(events[1]?.metadata.actor.credential).toBe('system');

    // Sweeping again changes nothing.
    expect((await sweepOrphans(server.services, new Date(uploadedAt.getTime() + 26 * 3_600_000))).deleted).toEqual([]);
  });
});

describe('files: an uploader who can no longer see any resource referencing the upload', () => {
  // A server of its own: the test changes the directory. User 90 is on project 10's team.
  const uploader = 90;
  const server = serverForSuite([
    demoDirectory.events,
    [
      { type: 'UserUpserted', data: { userId: uploader, name: 'Uma Uploader', status: 'active' } },
      { type: 'ProjectMemberSet', data: { projectId: P, userId: uploader, role: 'team' } },
    ],
  ]);
  const files = fileApi(server);
  const api = resourceApi(server);

  it('given a team-only resource referencing the upload, when the uploader leaves the team, then the download is 404', async () => {
    // given: the uploader's file, referenced by a resource only the team sees
    const stored = await files.uploaded(uploader, 'plan.pdf', 'application/pdf', samples.pdf());
    await api.create(
      uploader,
      newResource(scope.communityProject(communityProjects.solarIn1), { resourceUrl: stored, privacyLevel: 3 }),
    );
    expect((await files.download(uploader, stored)).status).toBe(200);

    // when: the uploader leaves the team
    const left = await server.directory([{ type: 'ProjectMemberRemoved', data: { projectId: P, userId: uploader } }]);
    expect(left.status).toBe(200);

    // then: having uploaded it no longer opens it; a team member still downloads it
    const res = await files.download(uploader, stored);
    expect(res.status).toBe(404);
    expect(res.json().type).toBe('/problems/not-found');
    expect((await files.download(users.team, stored)).status).toBe(200);
  });
});
