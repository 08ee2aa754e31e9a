/**
 * What the CLI's commands that go through a running service (`--api <url>`) share: how the
 * service's address is checked, and how a refusal's problem document is read.
 */

/** Why an `--api` value is refused (a usage error): not an http(s) URL. */
export const SERVICE_URL_USAGE = '--api must be the service URL, http(s)://host[:port]';

export const isServiceUrl = (url: string): boolean => /^https?:\/\/[^\s]+$/.test(url);

/** The address with no trailing slash, for paths to be appended. */
export const serviceBase = (url: string): string => url.replace(/\/+$/, '');

/** How long the CLI waits for one answer of the service. */
export const SERVICE_ANSWER_TIMEOUT_MS = 60_000;

/** A refusal's detail: the problem document's `detail`, else the answer's text as it is. */
export function problemDetail(text: string): string {
  try {
    return (JSON.parse(text) as { detail?: string }).detail ?? text;
  } catch {
    // not a problem document: its text as it is
    return text;
  }
}
