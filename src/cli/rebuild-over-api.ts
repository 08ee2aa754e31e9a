/**
 * `resources-cli rebuild --api <url>`: the rebuild asked of a running service, as the console asks
 * it (`POST /internal/read-models/rebuild`), and followed until it ends. The job then runs in the
 * service, which reports it in its metrics (`read_model_rebuilds_total`, `read_model_rebuild_running`)
 * and on its console, where a rebuild run by the CLI in a process of its own reports nowhere; the
 * CLI needs the service's address and the operator credential, not the stores.
 */

import { askService, refusalDetail, serviceBase } from './service-api';

type Job = {
  readonly jobId: string;
  readonly phase: string;
  readonly outcome: 'succeeded' | 'failed' | null;
  readonly error: string | null;
  readonly progress: { readonly position: string; readonly head: string };
};

/** How often the job is asked for: the service updates it as batches commit. */
const POLL_MS = 250;

/**
 * The operator credential: an operator's own token (OPERATOR_TOKENS, sent as a bearer token), or
 * the directory token the service is configured with.
 */
export type OperatorCredential =
  { readonly kind: 'operator'; readonly token: string } | { readonly kind: 'directory'; readonly token: string };

export type RebuildOverApiOptions = {
  readonly url: string;
  readonly credential: OperatorCredential;
  readonly readModel: string | undefined;
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
};

/** The answer's status and its problem's detail, as the CLI prints a refusal. */
const refusalOf = async (res: Response): Promise<string> => `${res.status} ${await refusalDetail(res)}`.trim();

/** Exit code: 0 when the job succeeded, 1 when it failed or the service refused it. */
export async function rebuildOverApi(options: RebuildOverApiOptions): Promise<number> {
  const base = serviceBase(options.url);
  const { credential } = options;
  const headers = {
    ...(credential.kind === 'operator'
      ? { authorization: `Bearer ${credential.token}` }
      : { 'x-directory-token': credential.token }),
    'content-type': 'application/json',
  };
  const started = await askService(`${base}/internal/read-models/rebuild`, {
    method: 'POST',
    headers,
    body: JSON.stringify(options.readModel === undefined ? {} : { readModel: options.readModel }),
  });
  if (started.status !== 202) {
    options.err(`rebuild refused: ${await refusalOf(started)}`);
    return 1;
  }
  const { jobId } = (await started.json()) as { jobId: string };
  let shown = '';
  for (;;) {
    const res = await askService(`${base}/internal/read-models/rebuild/${encodeURIComponent(jobId)}`, { headers });
    if (res.status !== 200) {
      options.err(`rebuild ${jobId}: ${await refusalOf(res)}`);
      return 1;
    }
    const job = (await res.json()) as Job;
    const line = `${job.phase} ${job.progress.position}/${job.progress.head}`;
    if (line !== shown) options.err((shown = line));
    if (job.outcome !== null) {
      options.out(JSON.stringify(job));
      return job.outcome === 'succeeded' ? 0 : 1;
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
