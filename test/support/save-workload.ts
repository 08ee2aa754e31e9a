/**
 * Clients that keep saving and reading while a test breaks the stores under them: each save
 * carries an Idempotency-Key and is retried with it until answered 200 (a 503, a 409 while the
 * first attempt may still run, a dropped connection), against whichever API process comes next.
 * Every answer is recorded with when it was asked and answered, for the test to judge.
 */
import { randomUUID } from 'node:crypto';
import { demo } from './demo-directory';

export type Observation = {
  kind: 'save' | 'read';
  target: string;
  startedAt: number;
  endedAt: number;
  /** The HTTP status, or 0 when no answer came (a connection error, or `bound` ran out: `hung`). */
  status: number;
  retryAfter: string | null;
  hung: boolean;
  problem?: string;
};

export type Workload = {
  /** Save name → the id its 200 answered. */
  readonly answered: Map<string, number>;
  /** Every name a client tried to save (answered or not). */
  readonly attempted: Set<string>;
  readonly observations: Observation[];
  readonly run: string;
  /** Clients finish the save they are on (retrying up to `drainMs`), then stop. */
  stop(drainMs?: number): Promise<void>;
};

export const saveBody = (name: string) => ({
  id: 0,
  name,
  resourceUrl: 'https://example.org/r.pdf',
  privacyLevel: 3,
  communityProjectId: demo.communityProjects.solarIn1,
});

export function startWorkload(options: {
  /** The API processes' base URLs, asked afresh each attempt (a process may be replaced). */
  targets: () => string[];
  headers: Record<string, string>;
  clients?: number;
  /** A request past this is recorded as hung and abandoned (the client retries). */
  boundMs?: number;
}): Workload {
  const run = randomUUID().slice(0, 8);
  const answered = new Map<string, number>();
  const attempted = new Set<string>();
  const observations: Observation[] = [];
  const boundMs = options.boundMs ?? 20_000;
  let stopping = false;
  let drainDeadline = Number.POSITIVE_INFINITY;
  let turn = 0;

  const ask = async (kind: Observation['kind'], path: string, body: unknown, extra: Record<string, string> = {}) => {
    const targets = options.targets();
    const target = targets[turn++ % targets.length] ?? '';
    const startedAt = Date.now();
    try {
      const res = await fetch(`${target}${path}`, {
        method: 'POST',
        headers: { ...options.headers, ...extra },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(boundMs),
      });
      const text = await res.text();
      const parsed = (() => {
        try {
          return JSON.parse(text) as { id?: number; type?: string };
        } catch {
          return {};
        }
      })();
      observations.push({
        kind,
        target,
        startedAt,
        endedAt: Date.now(),
        status: res.status,
        retryAfter: res.headers.get('retry-after'),
        hung: false,
        problem: parsed.type,
      });
      return { status: res.status, body: parsed };
    } catch (error) {
      const hung = (error as { name?: string }).name === 'TimeoutError';
      observations.push({ kind, target, startedAt, endedAt: Date.now(), status: 0, retryAfter: null, hung });
      return { status: 0, body: {} };
    }
  };

  const client = async (index: number) => {
    for (let n = 0; !stopping; n++) {
      const name = `Fault save ${run} ${index}-${n}`;
      const key = `${run}-${index}-${n}`;
      attempted.add(name);
      while (!answered.has(name) && Date.now() < drainDeadline) {
        const { status, body } = await ask('save', '/api/Resource/SaveProjectResource', saveBody(name), {
          'idempotency-key': key,
        });
        if (status === 200 && typeof body.id === 'number') answered.set(name, body.id);
        else await new Promise((r) => setTimeout(r, 100));
      }
      await ask('read', '/api/Project/GetResourceList', {
        projectId: demo.projects.solar,
        communityId: demo.communities.public1,
        take: 5,
      });
    }
  };
  const running = Promise.all(Array.from({ length: options.clients ?? 32 }, (_, i) => client(i)));
  return {
    answered,
    attempted,
    observations,
    run,
    async stop(drainMs = 30_000) {
      stopping = true;
      drainDeadline = Date.now() + drainMs;
      await running;
    },
  };
}

/** Every resource of the run in the project's list of community 1, paged. */
export async function listedOf(
  url: string,
  headers: Record<string, string>,
  run: string,
): Promise<{ id: number; name: string }[]> {
  const all: { id: number; name: string }[] = [];
  for (let skip = 0; ; skip += 1000) {
    const res = await fetch(`${url}/api/Project/GetResourceList`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ projectId: demo.projects.solar, communityId: demo.communities.public1, skip, take: 1000 }),
    });
    if (res.status !== 200) throw new Error(`list: ${res.status} ${await res.text()}`);
    const page = ((await res.json()) as { resources: { list: { id: number; name: string }[] } }).resources.list;
    all.push(...page);
    if (page.length < 1000) break;
  }
  return all.filter((r) => r.name.includes(run));
}

/** Names saved more than once, and answered saves missing or under another id. */
export function lostAndDuplicated(
  workload: Workload,
  listed: { id: number; name: string }[],
): { lost: string[]; duplicated: string[] } {
  const byName = new Map<string, number[]>();
  for (const r of listed) byName.set(r.name, [...(byName.get(r.name) ?? []), r.id]);
  const duplicated = [...byName].filter(([, ids]) => ids.length > 1).map(([name]) => name);
  const lost = [...workload.answered].filter(([name, id]) => !(byName.get(name) ?? []).includes(id)).map(([n]) => n);
  return { lost, duplicated };
}
