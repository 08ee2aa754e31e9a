import type { ApiKeyCreated } from './api-key-events';

/** ApiKeyCreated as version 1 stored it: before a key had a scope and a quota of its own. */
export type ApiKeyCreatedV1 = Omit<ApiKeyCreated['data'], 'readOnly' | 'ratePerHour'>;

/**
 * Version 1 → 2: a key created before scopes acts fully as its user (not read-only) and its quota
 * is the service's (null), whatever RATE_LIMIT_PER_HOUR says when it is used.
 */
export const apiKeyCreatedV1ToV2 = (data: ApiKeyCreatedV1): ApiKeyCreated['data'] => ({
  ...data,
  readOnly: false,
  ratePerHour: null,
});
