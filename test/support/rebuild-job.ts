import type { HttpResult, TestServer } from './test-server';

/** A rebuild job as GET /internal/read-models/rebuild/{jobId} answers it. */
export type RebuildJobBody = {
  jobId: string;
  readModels: string[];
  phase: 'queued' | 'replaying' | 'switching' | 'done' | 'failed';
  progress: { position: string; head: string; eventsApplied: number };
  startedAt: string;
  finishedAt: string | null;
  outcome: 'succeeded' | 'failed' | null;
  error: string | null;
};

/** GET /internal/read-models/digest's answer. */
export type DigestBody = {
  generation: number;
  checkpoint: string | null;
  digest: string;
  counts: Record<string, number>;
};

export const operator = (server: TestServer) => ({
  headers: { 'x-directory-token': server.services.secrets.directoryToken },
});

export const rebuildJob = (server: TestServer, jobId: string): Promise<HttpResult<RebuildJobBody>> =>
  server.get<RebuildJobBody>(`/internal/read-models/rebuild/${jobId}`, operator(server));

/**
 * Polls the job until it ended: its last answer, and every phase seen on the way (in order, each
 * once). Polls often: the rebuilds of the tests' small logs take tens of milliseconds.
 */
export async function waitForJob(
  server: TestServer,
  jobId: string,
): Promise<{ job: RebuildJobBody; phases: RebuildJobBody['phase'][] }> {
  const phases: RebuildJobBody['phase'][] = [];
  const deadline = Date.now() + 50_000;
  for (;;) {
    const answer = await rebuildJob(server, jobId);
    if (answer.status !== 200) throw new Error(`GET of job ${jobId}: ${answer.status} ${answer.text}`);
    if (phases.at(-1) !== answer.body.phase) phases.push(answer.body.phase);
    if (answer.body.outcome !== null) return { job: answer.body, phases };
    if (Date.now() > deadline) throw new Error(`job ${jobId} never ended: ${answer.text}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * Starts a rebuild (`body`: `{ readModel }` for one alone) and waits for its job to end: the 202,
 * the job as it ended, the phases seen, and the read models' digest afterwards.
 */
export async function rebuildAndWait(
  server: TestServer,
  body: Record<string, unknown> = {},
): Promise<{
  started: HttpResult<{ jobId: string }>;
  job: RebuildJobBody;
  phases: RebuildJobBody['phase'][];
  after: DigestBody;
}> {
  const started = await server.post<{ jobId: string }>('/internal/read-models/rebuild', body, operator(server));
  if (started.status !== 202) throw new Error(`the rebuild was not started: ${started.status} ${started.text}`);
  const { job, phases } = await waitForJob(server, started.body.jobId);
  const digest = await server.get<DigestBody>('/internal/read-models/digest', operator(server));
  if (digest.status !== 200) throw new Error(`the digest after the rebuild: ${digest.status} ${digest.text}`);
  return { started, job, phases, after: digest.body };
}
