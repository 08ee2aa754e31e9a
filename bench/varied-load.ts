/**
 * The pieces of the bench's varied scenarios, the traffic many users send rather than one client
 * polling: the bare Express ceiling in its own process, requests that pick another caller and
 * another page each time, and saves landing at a steady rate while a scenario runs.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type autocannon from 'autocannon';
import { CALLERS, MANY_CALLERS, VIEWS, communityOf, type Scale } from './scale-data';

export type BareExpress = { readonly url: string; readonly child: ChildProcess };

/**
 * Starts bench/bare-express.ts in its own process and waits for its URL. `server`: 'app-prototypes'
 * serves it as the service is served (the reference line, not the ceiling).
 */
export function startBareExpress(server: 'plain' | 'app-prototypes' = 'plain'): Promise<BareExpress> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'bare-express.ts')], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, BARE_SERVER: server },
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) resolve({ url: line.trim(), child });
    });
    child.once('exit', (code) => reject(new Error(`bare express exited with ${code}`)));
  });
}

/** The ceiling's request: a JSON body of a list request's size, parsed by express.json as the service's are. */
export const bareExpressRequest = (bare: BareExpress): autocannon.Options => ({
  url: bare.url,
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ projectId: 1, communityId: 1, take: 20, skip: 0, orderBy: 1 }),
});

/**
 * The saves scenario: SaveProjectResource creating one resource per request in `where`, 16 clients
 * (`npm run bench`'s saves group and bench/ab-pairs.ts's `saves` alike).
 */
export const savesRequest = (
  serviceUrl: string,
  headers: Record<string, string>,
  where: { readonly projectId: number; readonly communityId: number },
): autocannon.Options => ({
  url: `${serviceUrl}/api/Resource/SaveProjectResource`,
  method: 'POST',
  connections: 16,
  headers,
  body: JSON.stringify({
    id: 0,
    name: 'Bench save',
    resourceUrl: 'https://example.org/bench.pdf',
    privacyLevel: 2,
    ...where,
  }),
});

/** A deterministic pseudo-random sequence (mulberry32), so two runs send the same requests. */
export function randomSequence(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A request that is another one each time autocannon sends it: `next()` gives its headers and
 * body (another caller, another page).
 */
export function variedRequest(
  base: { url: string; method: 'POST' | 'GET' },
  next: () => { headers: Record<string, string>; body?: string; path?: string },
): autocannon.Options {
  return {
    url: base.url,
    method: base.method,
    requests: [
      {
        setupRequest: (request) => {
          const { headers, body, path: requestPath } = next();
          return {
            ...request,
            headers,
            ...(body === undefined ? {} : { body }),
            ...(requestPath === undefined ? {} : { path: requestPath }),
          };
        },
      },
    ],
  };
}

/**
 * The varied privacy reads: GetResourcePrivacy of a random one of the resources a member sees in
 * the large view, by a random member, the team or the admin. `memberHeaders` list those
 * resources; `headersOf` authenticates each read's caller.
 */
export async function privacyReads(
  url: string,
  scale: Scale,
  memberHeaders: Record<string, string>,
  headersOf: (userId: number) => Record<string, string>,
  pick: <T>(items: readonly T[]) => T,
): Promise<{ readonly request: autocannon.Options; readonly callers: number; readonly resources: number }> {
  const listed = await fetch(`${url}/api/Project/GetResourceList`, {
    method: 'POST',
    headers: { ...memberHeaders, 'content-type': 'application/json' },
    body: JSON.stringify({ projectId: VIEWS.hotProject, communityId: VIEWS.hotCommunity, take: 1000 }),
  });
  const ids = ((await listed.json()) as { resources: { list: { id: number }[] } }).resources.list.map((r) => r.id);
  const readers = [...MANY_CALLERS.members.filter((u) => u <= scale.users), CALLERS.team, CALLERS.admin];
  const request = variedRequest({ url: `${url}/api/Privacy/GetResourcePrivacy?resourceId=1`, method: 'GET' }, () => ({
    headers: headersOf(pick(readers)),
    path: `/api/Privacy/GetResourcePrivacy?resourceId=${pick(ids)}`,
  }));
  return { request, callers: readers.length, resources: ids.length };
}

export type WriteLoad = { stop(): Promise<{ saves: number; failed: number; seconds: number }> };

/**
 * Saves landing at about `perSecond` while a scenario runs, as other users keep working: each
 * save is sent on its own (at most four in flight), so a slow answer delays none of the others.
 */
export function startWriteLoad(perSecond: number, save: (i: number) => Promise<Response>): WriteLoad {
  let saves = 0;
  let failed = 0;
  let inFlight = 0;
  let i = 0;
  const started = performance.now();
  const pending = new Set<Promise<void>>();
  const timer = setInterval(() => {
    if (inFlight >= 4) return;
    inFlight += 1;
    const sent = save(i++)
      .then(async (res) => {
        await res.arrayBuffer();
        if (res.status === 200) saves += 1;
        else failed += 1;
      })
      .catch(() => {
        failed += 1;
      })
      .finally(() => {
        inFlight -= 1;
        pending.delete(sent);
      });
    pending.add(sent);
  }, 1000 / perSecond);
  return {
    async stop() {
      clearInterval(timer);
      await Promise.all(pending);
      return { saves, failed, seconds: (performance.now() - started) / 1000 };
    },
  };
}

/** Save number `i` of a write load into `projectId`, as its team member (`headers`), at one of levels 1-3. */
export function landSave(
  url: string,
  scale: Scale,
  projectId: number,
  i: number,
  headers: Record<string, string>,
): Promise<Response> {
  return fetch(`${url}/api/Resource/SaveProjectResource`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      id: 0,
      name: `Bench save ${i}`,
      resourceUrl: 'https://example.org/bench.pdf',
      privacyLevel: 1 + (i % 3),
      projectId,
      communityId: communityOf(scale, projectId),
    }),
  });
}
