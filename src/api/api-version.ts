/**
 * The API's version, named by the date its contract was settled. Defined once here: the
 * `Api-Version` header of every answer, the check of the one a request names, the OpenAPI
 * document's `info.version` and its header documentation are all derived from it, so they cannot
 * disagree. A breaking change of the contract gets a new date here and a CHANGELOG.md entry.
 */
export const API_VERSION = '2026-11-28';

/** The versions a request may name; the first is the current one, served when a request names none. */
export const SUPPORTED_API_VERSIONS: readonly string[] = [API_VERSION];

export const API_VERSION_HEADER = 'Api-Version';

/** The shape of a version name, so a malformed value and an unknown date get different details. */
const VERSION_SHAPE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Why the `Api-Version` a request named cannot be served, or undefined when it can (a request
 * that names none is served as the current version).
 */
export function apiVersionRefusal(named: string | undefined): string | undefined {
  if (named === undefined) return undefined;
  const value = named.trim();
  if (SUPPORTED_API_VERSIONS.includes(value)) return undefined;
  const supported = SUPPORTED_API_VERSIONS.join(', ');
  return VERSION_SHAPE.test(value)
    ? `${API_VERSION_HEADER} ${value} is not a version of this API; supported: ${supported}`
    : `${API_VERSION_HEADER} must be a version date (YYYY-MM-DD); supported: ${supported}`;
}
