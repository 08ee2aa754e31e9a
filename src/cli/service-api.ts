/**
 * What the CLI's commands that go through a running service (`--api <url>`) share: how the
 * service's address is checked, and how a refusal's problem document is read.
 */

/** Why an `--api` value is refused (a usage error): not an http(s) URL, or one carrying a password. */
export const SERVICE_URL_USAGE =
  '--api must be the service URL, http(s)://host[:port], with no user or password (the credential goes in its variable)';

/**
 * An http(s) URL with no user part: fetch refuses one with credentials, and its refusal repeats
 * the URL, password included, which the CLI would print.
 */
export function isServiceUrl(url: string): boolean {
  if (!/^https?:\/\/[^\s]+$/.test(url)) return false;
  try {
    const parsed = new URL(url);
    return parsed.username === '' && parsed.password === '';
  } catch {
    return false;
  }
}

/** The address with no trailing slash, for paths to be appended. */
export const serviceBase = (url: string): string => url.replace(/\/+$/, '');

/** How long the CLI waits for one answer of the service. */
export const SERVICE_ANSWER_TIMEOUT_MS = 60_000;

/**
 * A request to the service as the CLI makes it: bounded in time, and never following a redirect.
 * fetch drops `Authorization` on a redirect to another origin but carries every other header
 * (`x-directory-token`, `x-api-key`) to whatever address the redirect names; the service answers
 * its API without redirects, so one is answered as a refusal instead.
 */
export function askService(url: string, init: RequestInit = {}, fetchImpl: typeof fetch = fetch): Promise<Response> {
  return fetchImpl(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(SERVICE_ANSWER_TIMEOUT_MS) });
}

/** Whether an answer is a redirect (askService does not follow it). */
export const isRedirect = (res: Response): boolean => res.status >= 300 && res.status < 400;

/** What the CLI says of an answer it refuses: where a redirect led, or the problem's detail. */
export async function refusalDetail(res: Response): Promise<string> {
  if (isRedirect(res))
    return `a redirect to ${res.headers.get('location') ?? 'nowhere said'}, not followed (the credential stays with the address given): give --api the service's own address`;
  return problemDetail(await res.text());
}

/** A refusal's detail: the problem document's `detail`, else the answer's text as it is. */
export function problemDetail(text: string): string {
  try {
    return (JSON.parse(text) as { detail?: string }).detail ?? text;
  } catch {
    // not a problem document: its text as it is
    return text;
  }
}
