/**
 * Names a process's PostgreSQL connections (pg_stat_activity.application_name), so an operator
 * can tell the API's from the projector's and end or trace one process's sessions: the URL's own
 * `application_name` wins where it sets one. A URL that does not parse is left as it is (the
 * driver reports it).
 */
export function withApplicationName(url: string, name: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  if (parsed.searchParams.has('application_name')) return url;
  parsed.searchParams.set('application_name', name.slice(0, 63));
  return parsed.toString();
}
