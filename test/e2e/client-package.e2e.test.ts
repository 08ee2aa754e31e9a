/**
 * The packaged client (clients/typescript) as a consumer gets it: `npm pack` of its own
 * package.json (its prepack builds it with its own tsconfig), the tarball installed by npm beside
 * openapi-fetch into an ES-module project and into a CommonJS one, each run against a live server;
 * a project compiled with `moduleResolution: NodeNext` runs too, and one with `Bundler` type-checks.
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

const consumerSource = `import { createResourcesClient, eachResource } from '@project-resources/client';
import type { components } from '@project-resources/client';

type ResourceRecord = components['schemas']['ResourceRecord'];

const api = createResourcesClient({ baseUrl: process.env.BASE_URL ?? '', token: process.env.TOKEN ?? '' });
const saved = await api.POST('/api/Resource/SaveProjectResource', {
  body: { id: 0, name: 'From the packaged client', resourceUrl: 'https://example.org/c.pdf', privacyLevel: 2, communityProjectId: ${demo.communityProjects.solarIn1} },
});
const listed = await api.POST('/api/Project/GetResourceList', { body: { projectId: ${demo.projects.solar}, communityId: ${demo.communities.public1}, take: 100 } });
const names: string[] = (listed.data?.resources.list ?? []).map((r: ResourceRecord) => r.name);
const walked: number[] = [];
for await (const r of eachResource(api, { projectId: ${demo.projects.solar}, communityId: ${demo.communities.public1}, take: 1 })) walked.push(r.id);
console.log(JSON.stringify({ status: saved.response.status, id: saved.data?.id, names, walked: walked.length === names.length }));
`;

/** A plain JavaScript consumer: the same calls from an ES module or a CommonJS one, `load` the only difference. */
const plainSource = (load: string) => `${load}
const api = createResourcesClient({ baseUrl: process.env.BASE_URL, token: process.env.TOKEN, timeoutMs: 5000 });
const run = async () => {
  const ids = [];
  for await (const r of eachResource(api, { projectId: ${demo.projects.solar}, communityId: ${demo.communities.public1}, take: 2 })) ids.push(r.id);
  const whole = await api.POST('/api/Project/GetResourceList', { body: { projectId: ${demo.projects.solar}, communityId: ${demo.communities.public1}, take: 1000 } });
  console.log(JSON.stringify({ same: JSON.stringify(ids) === JSON.stringify(whole.data.resources.list.map((r) => r.id)), n: ids.length, version: API_VERSION }));
};
run();
`;

describe('the packaged TypeScript client', () => {
  jest.setTimeout(120_000);
  const server = serverForSuite();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'prs-client-'));
  const pkg = path.join(tmp, 'client');

  let tarball: string;

  beforeAll(async () => {
    // given: the tarball `npm pack` makes of the package's own files (its prepack builds it)
    fs.mkdirSync(pkg);
    for (const file of fs.readdirSync(path.join(root, 'clients', 'typescript'))) {
      if (/\.(ts|json)$/.test(file))
        fs.copyFileSync(path.join(root, 'clients', 'typescript', file), path.join(pkg, file));
    }
    link(path.join(root, 'node_modules', 'openapi-fetch'), path.join(pkg, 'node_modules', 'openapi-fetch'));
    link(path.join(root, 'node_modules', 'typescript'), path.join(pkg, 'node_modules', 'typescript'));
    fs.mkdirSync(path.join(pkg, 'node_modules', '.bin'));
    fs.symlinkSync(
      path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'),
      path.join(pkg, 'node_modules', '.bin', 'tsc'),
    );
    const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', tmp], { cwd: pkg });
    tarball = path.join(tmp, (JSON.parse(stdout) as { filename: string }[])[0]?.filename as string);
  });

  /** A project with the tarball installed by npm (offline: it has no dependency) and the peer dependency beside it. */
  const installed = async (name: string, packageJson: Record<string, unknown>): Promise<string> => {
    const dir = path.join(tmp, name);
    fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
    writeJson(path.join(dir, 'package.json'), { name, private: true, ...packageJson });
    await run(
      'npm',
      ['install', tarball, '--offline', '--no-audit', '--no-fund', '--ignore-scripts', '--legacy-peer-deps'],
      { cwd: dir },
    );
    link(path.join(root, 'node_modules', 'openapi-fetch'), path.join(dir, 'node_modules', 'openapi-fetch'));
    return dir;
  };

  const env = async () => ({ ...process.env, BASE_URL: server.url, TOKEN: await server.sessionToken(demo.users.team) });

  it.each([
    [
      'an ES module',
      { type: 'module' },
      'index.mjs',
      "import { API_VERSION, createResourcesClient, eachResource } from '@project-resources/client';",
    ],
    [
      'a CommonJS module',
      { type: 'commonjs' },
      'index.cjs',
      "const { API_VERSION, createResourcesClient, eachResource } = require('@project-resources/client');",
    ],
  ])(
    'given the packed tarball installed in a project loading it as %s, then it imports and walks a list against the server',
    async (_kind, packageJson, file, load) => {
      const dir = await installed(`plain-${file.replace('.', '-')}`, packageJson);
      fs.writeFileSync(path.join(dir, file), plainSource(load));

      const { stdout } = await run(process.execPath, [path.join(dir, file)], { env: await env() });

      expect(JSON.parse(stdout)).toEqual({ same: true, n: expect.any(Number), version: '2026-11-28' });
      expect(
        fs.existsSync(path.join(dir, 'node_modules', '@project-resources', 'client', 'dist', 'client-pages.js')),
      ).toBe(true);
    },
  );

  /** A TypeScript consumer project with the tarball installed and the types of Node. */
  const consumer = async (name: string, compilerOptions: Record<string, unknown>): Promise<string> => {
    const dir = await installed(name, { type: 'module' });
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
    link(path.join(root, 'node_modules', '@types', 'node'), path.join(dir, 'node_modules', '@types', 'node'));
    return dir;
  };

  it('given a NodeNext project importing the package, then it compiles and runs against the server: its save is listed', async () => {
    const dir = await consumer('nodenext-consumer', { module: 'NodeNext', moduleResolution: 'NodeNext' });
    await run(tsc, ['-p', path.join(dir, 'tsconfig.json')]);

    const { stdout } = await run(process.execPath, [path.join(dir, 'dist', 'index.js')], { env: await env() });

    const result = JSON.parse(stdout) as { status: number; id: number; names: string[]; walked: boolean };
    expect(result.status).toBe(200);
    expect(result.id).toBeGreaterThan(0);
    expect(result.names).toContain('From the packaged client');
    expect(result.walked).toBe(true);
  });

  it('given a bundler project importing the package, then it type-checks', async () => {
    const dir = await consumer('bundler-consumer', { module: 'ESNext', moduleResolution: 'Bundler', noEmit: true });

    await expect(run(tsc, ['-p', path.join(dir, 'tsconfig.json')])).resolves.toBeDefined();
  });
});
