/**
 * The client's fetch: a time limit on each attempt, and retries with jittered exponential backoff
 * of what is safe to send again: a GET, a read sent as a POST (GetResourceList, the applications'
 * list) and a request carrying an `Idempotency-Key` (every POST this client sends has one; the
 * service answers a repeat of a stored write with the stored answer).
 */

export type RetryOptions = {
  /** Retries after the first attempt (default 3; 0: none). */
  readonly retries?: number;
  /** The first backoff in milliseconds, doubled at each retry and jittered (default 200). */
  readonly retryDelayMs?: number;
  /** The longest wait between two attempts, a `Retry-After` included (default 30 000). */
  readonly maxRetryDelayMs?: number;
  /** Each attempt's time limit in milliseconds (default 10 000; 0: none). */
  readonly timeoutMs?: number;
  /** The source of the jitter, a number in [0, 1) (default Math.random). */
  readonly random?: () => number;
};

const IN_PROGRESS = '/problems/idempotency-key-in-progress';

/** POSTs that only read: sending them again changes nothing. */
const READ_POSTS = [/\/api\/Project\/GetResourceList$/, /\/api\/ApplicationDefinition\/[^/]+\/Applications$/];

const safeToRepeat = (request: Request): boolean =>
  request.method === 'GET' ||
  request.method === 'HEAD' ||
  request.headers.has('idempotency-key') ||
  (request.method === 'POST' && READ_POSTS.some((path) => path.test(new URL(request.url).pathname)));

/** Whether an answer leaves the request unanswered: worth sending again. */
async function unanswered(response: Response): Promise<boolean> {
  if ([429, 502, 503, 504].includes(response.status)) return true;
  if (response.status !== 409) return false;
  const problem = (await response
    .clone()
    .json()
    .catch(() => undefined)) as { type?: string } | undefined;
  return problem?.type === IN_PROGRESS;
}

/** `Retry-After` in milliseconds: delay-seconds or an HTTP-date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Full backoff halved and jittered: between half and all of `first · 2^attempt`. */
const backoff = (first: number, attempt: number, random: () => number): number =>
  first * 2 ** attempt * (0.5 + random() / 2);

/** The attempt's signal: the caller's, ended also by the time limit. */
function attemptSignal(caller: AbortSignal | null, timeoutMs: number): AbortSignal | undefined {
  const signals = [...(caller ? [caller] : []), ...(timeoutMs > 0 ? [AbortSignal.timeout(timeoutMs)] : [])];
  return signals.length > 1 ? AbortSignal.any(signals) : signals[0];
}

/** A fetch that gives every POST an Idempotency-Key, bounds each attempt in time, and retries what is safe to. */
export function retryingFetch(inner: typeof globalThis.fetch, options: RetryOptions = {}): typeof globalThis.fetch {
  const retries = options.retries ?? 3;
  const first = options.retryDelayMs ?? 200;
  const longest = options.maxRetryDelayMs ?? 30_000;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const random = options.random ?? Math.random;
  return async (input, init) => {
    const request = new Request(input, init);
    if (request.method === 'POST' && !request.headers.has('idempotency-key'))
      request.headers.set('idempotency-key', crypto.randomUUID());
    const caller = init?.signal ?? (input instanceof Request ? input.signal : null);
    const repeatable = safeToRepeat(request);
    for (let attempt = 0; ; attempt++) {
      let response: Response | undefined;
      try {
        response = await inner(new Request(request.clone(), { signal: attemptSignal(caller, timeoutMs) }));
      } catch (error) {
        // The caller's own abort ends the call; a time limit or a network error is worth another attempt.
        if (caller?.aborted || !repeatable || attempt >= retries) throw error;
      }
      if (response && (!repeatable || attempt >= retries || !(await unanswered(response)))) return response;
      const asked = retryAfterMs(response?.headers.get('retry-after') ?? null);
      const delay = Math.min(longest, asked ?? backoff(first, attempt, random));
      await new Promise((resolve) => setTimeout(resolve, delay));
      if (caller?.aborted) throw caller.reason;
    }
  };
}
