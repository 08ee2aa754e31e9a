/**
 * The packaged client (clients/typescript) as a consumer gets it: built with its own package.json
 * and tsconfig, installed beside openapi-fetch, imported by a project compiled with
 * `moduleResolution: NodeNext` and run against a live server; and type-checked by a project with
 * `moduleResolution: Bundler`.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { demo } from '../support/demo-directory';
import { serverForSuite } from '../support/suite-server';

const run = promisify(execFile);
const root = path.join(__dirname, '..', '..');
const tsc = path.join(root, 'node_modules', '.bin', 'tsc');

function link(target: string, at: string): void {
  fs.mkdirSync(path.dirname(at), { recursive: true });
  fs.symlinkSync(target, at, 'dir');
}

function writeJson(file: string, value: unknown): void {
  fs.writeFileSync(file, JSON.stringify(value, null, 2));
}

const consumerSource = `import { createResourcesClient } from '@project-resources/client';
import type { components } from '@project-resources/client';

type ResourceRecord = components['schemas']['ResourceRecord'];

const api = createResourcesClient({ baseUrl: process.env.BASE_URL ?? '', token: process.env.TOKEN ?? '' });
const saved = await api.POST('/api/Resource/SaveProjectResource', {
  body: { id: 0, name: 'From the packaged client', resourceUrl: 'https://example.org/c.pdf', privacyLevel: 2, communityProjectId: ${demo.communityProjects.solarIn1} },
});
const listed = await api.POST('/api/Project/GetResourceList', { body: { projectId: ${demo.projects.solar}, communityId: ${demo.communities.public1}, take: 100 } });
const names: string[] = (listed.data?.resources.list ?? []).map((r: ResourceRecord) => r.name);
console.log(JSON.stringify({ status: saved.response.status, id: saved.data?.id, names }));
`;

describe('the packaged TypeScript client', () => {
  jest.setTimeout(120_000);
  const server = serverForSuite();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'prs-client-'));
  const pkg = path.join(tmp, 'client');

  beforeAll(async () => {
    // given: the package built from its own files, as `npm pack` would (its prepack builds it)
    fs.mkdirSync(pkg);
    for (const file of ['package.json', 'tsconfig.json', 'client.ts', 'schema.d.ts', 'openapi.json']) {
      fs.copyFileSync(path.join(root, 'clients', 'typescript', file), path.join(pkg, file));
    }
    link(path.join(root, 'node_modules', 'openapi-fetch'), path.join(pkg, 'node_modules', 'openapi-fetch'));
    await run(tsc, ['-p', path.join(pkg, 'tsconfig.json')]);
    fs.copyFileSync(path.join(pkg, 'schema.d.ts'), path.join(pkg, 'dist', 'schema.d.ts'));
  });

  /** A consumer project with the package and its peer dependency installed. */
  const consumer = (name: string, compilerOptions: Record<string, unknown>): string => {
    const dir = path.join(tmp, name);
    fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
    writeJson(path.join(dir, 'package.json'), { name, private: true, type: 'module' });
    writeJson(path.join(dir, 'tsconfig.json'), {
      compilerOptions: {
        target: 'ES2022',
        strict: true,
        lib: ['ES2023', 'DOM'],
        types: ['node'],
        outDir: 'dist',
        rootDir: 'src',
        ...compilerOptions,
      },
      include: ['src'],
    });
    fs.writeFileSync(path.join(dir, 'src', 'index.ts'), consumerSource);
    link(pkg, path.join(dir, 'node_modules', '@project-resources', 'client'));
    link(path.join(root, 'node_modules', 'openapi-fetch'), path.join(dir, 'node_modules', 'openapi-fetch'));
    link(path.join(root, 'node_modules', '@types', 'node'), path.join(dir, 'node_modules', '@types', 'node'));
    return dir;
  };

  it('given a NodeNext project importing the package, then it compiles and runs against the server: its save is listed', async () => {
    const dir = consumer('nodenext-consumer', { module: 'NodeNext', moduleResolution: 'NodeNext' });
    await run(tsc, ['-p', path.join(dir, 'tsconfig.json')]);

    const { stdout } = await run(process.execPath, [path.join(dir, 'dist', 'index.js')], {
      env: { ...process.env, BASE_URL: server.url, TOKEN: await server.sessionToken(demo.users.team) },
    });

    const result = JSON.parse(stdout) as { status: number; id: number; names: string[] };
    expect(result.status).toBe(200);
    expect(result.id).toBeGreaterThan(0);
    expect(result.names).toContain('From the packaged client');
  });

  it('given a bundler project importing the package, then it type-checks', async () => {
    const dir = consumer('bundler-consumer', { module: 'ESNext', moduleResolution: 'Bundler', noEmit: true });

    await expect(run(tsc, ['-p', path.join(dir, 'tsconfig.json')])).resolves.toBeDefined();
  });
});
