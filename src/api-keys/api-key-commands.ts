import { randomBytes } from 'node:crypto';
import type { ApiKeyCommand, ApiKeyDecisionContext, ApiKeysState } from './api-key-decide';
import { apiKeyDecider, assertMayCreateApiKey, quotaOf } from './api-key-decide';
import { apiKeyStreamId } from './api-key-events';
import { assertOwnLogin } from '../domain/auth/caller';
import { formatApiKey, newKeyId, newSecret } from './api-key-format';
import type { SecretHasher } from '../ports/secret-hasher';
import type { EventStore } from '../ports/event-store';
import { handleCommand } from '../commands/command-handler';
import type { DirectoryFacts } from '../directory/directory-facts';
import { nextId } from '../commands/id-sequence';
import type { RequestInfo } from '../commands/request-info';
import { stampOf } from '../commands/request-info';

export type ApiKeyCommandDeps = {
  readonly eventStore: EventStore;
  readonly directory: DirectoryFacts;
  readonly clock: () => Date;
  readonly hasher: SecretHasher;
  readonly cap: number;
  /** RATE_LIMIT_PER_HOUR: the default and the ceiling of a key's own quota. */
  readonly ratePerHourLimit: number;
};

/** What creation and rotation answer: the only place the plaintext key ever appears. */
export type IssuedApiKey = {
  readonly id: number;
  readonly key: string;
  readonly keyId: string;
  readonly name: string;
  readonly createdAt: string;
  readonly expiresAt: string;
  readonly readOnly: boolean;
  /** The key's hourly quota (a rotation keeps it). */
  readonly ratePerHour: number;
  /** Rotation: until when the secret it replaced keeps working. */
  readonly previousValidUntil?: string;
  /**
   * Rotation inside the grace of an earlier one: only one previous secret is kept, so the secret
   * before it stopped working now instead of at this time.
   */
  readonly endedGraceUntil?: string;
};

export type ApiKeyCommandResult<T> = { readonly position: bigint | undefined; readonly answer: T };

/** Runs a command on the caller's key stream; `commandFor` builds it from the keys read, once per attempt. */
function run(
  deps: ApiKeyCommandDeps,
  request: RequestInfo,
  now: string,
  commandFor: (state: ApiKeysState, context: ApiKeyDecisionContext) => ApiKeyCommand | Promise<ApiKeyCommand>,
) {
  const context: ApiKeyDecisionContext = { now, cap: deps.cap, ratePerHourLimit: deps.ratePerHourLimit };
  return handleCommand(
    deps.eventStore,
    apiKeyStreamId(request.caller.userId),
    apiKeyDecider,
    (state) => commandFor(state, context),
    stampOf(request, now),
  );
}

export async function createApiKey(
  deps: ApiKeyCommandDeps,
  request: RequestInfo,
  body: {
    readonly name: string;
    readonly expiresInDays: number;
    readonly readOnly: boolean;
    readonly ratePerHour: number | undefined;
  },
): Promise<ApiKeyCommandResult<IssuedApiKey>> {
  const { caller } = request;
  assertOwnLogin(caller);
  assertMayCreateApiKey(await deps.directory.viewer(caller.userId));
  const keyId = newKeyId(randomBytes);
  const secret = newSecret(keyId, randomBytes);
  const secretHash = await deps.hasher.hash(secret);
  const now = deps.clock().toISOString();
  const id = await nextId(deps.eventStore, 'apikey', stampOf(request, now));
  const { position, events } = await run(deps, request, now, (_state, context) => ({
    type: 'CreateApiKey',
    data: {
      userId: caller.userId,
      id,
      keyId,
      name: body.name,
      secretHash,
      expiresInDays: body.expiresInDays,
      readOnly: body.readOnly,
      ratePerHour: body.ratePerHour,
    },
    facts: context,
  }));
  const [event] = events;
  if (event?.type !== 'ApiKeyCreated') throw new Error('CreateApiKey must record ApiKeyCreated');
  const { name, createdAt, expiresAt, readOnly, ratePerHour } = event.data;
  return {
    position,
    answer: {
      id,
      key: formatApiKey(keyId, secret),
      keyId,
      name,
      createdAt,
      expiresAt,
      readOnly,
      ratePerHour: quotaOf(ratePerHour, deps.ratePerHourLimit),
    },
  };
}

export async function revokeApiKey(
  deps: ApiKeyCommandDeps,
  request: RequestInfo,
  id: number,
): Promise<ApiKeyCommandResult<null>> {
  const { caller } = request;
  assertOwnLogin(caller);
  const now = deps.clock().toISOString();
  const { position } = await run(deps, request, now, (_state, context) => ({
    type: 'RevokeApiKey',
    data: { userId: caller.userId, id },
    facts: context,
  }));
  return { position, answer: null };
}

/** A new secret for the same key (same id, keyId, name, expiry, scope and quota); the old one keeps its grace. */
export async function rotateApiKey(
  deps: ApiKeyCommandDeps,
  request: RequestInfo,
  id: number,
  graceHours: number,
): Promise<ApiKeyCommandResult<IssuedApiKey>> {
  const { caller } = request;
  assertOwnLogin(caller);
  const now = deps.clock().toISOString();
  let issued = { keyId: '', secret: '' };
  const { position, state } = await run(deps, request, now, async (keys, context) => {
    const existing = keys.keys.get(id);
    // The keyId is needed before hashing (the checksum covers it); decide checks everything again.
    const keyId = existing?.keyId ?? 'svc_live_0000000000000000';
    const secret = newSecret(keyId, randomBytes);
    const secretHash = existing ? await deps.hasher.hash(secret) : '';
    issued = { keyId, secret };
    return { type: 'RotateApiKey', data: { userId: caller.userId, id, secretHash, graceHours }, facts: context };
  });
  const { keyId, secret } = issued;
  const key = state.keys.get(id);
  if (!key || key.keyId !== keyId) throw new Error('a rotated key must exist');
  const grace = await graceOfRotations(deps.eventStore, caller.userId, id, now);
  return {
    position,
    answer: {
      id,
      key: formatApiKey(keyId, secret),
      keyId,
      name: key.name,
      createdAt: key.createdAt,
      expiresAt: key.expiresAt,
      readOnly: key.readOnly,
      ratePerHour: quotaOf(key.ratePerHour, deps.ratePerHourLimit),
      ...grace,
    },
  };
}

type Rotated = { readonly id: number; readonly previousSecretValidUntil: string; readonly rotatedAt: string };

/** The grace the last rotation of key `id` gives, and the earlier grace it cut short, if any. */
async function graceOfRotations(
  eventStore: EventStore,
  userId: number,
  id: number,
  now: string,
): Promise<{ previousValidUntil?: string; endedGraceUntil?: string }> {
  const rotations = (await eventStore.readStream(apiKeyStreamId(userId)))
    .filter((e) => e.type === 'ApiKeyRotated' && (e.data as Rotated).id === id)
    .map((e) => e.data as Rotated);
  const [earlier, last] = rotations.slice(-2);
  const latest = last ?? earlier;
  if (!latest) return {};
  const cut =
    last && earlier && earlier.previousSecretValidUntil > now
      ? { endedGraceUntil: earlier.previousSecretValidUntil }
      : {};
  return { previousValidUntil: latest.previousSecretValidUntil, ...cut };
}

/**
 * The key as a stored write left it, for the answer of a request whose attempt died after the
 * write (src/api/idempotency.ts): the record of creation or rotation without the plaintext `key`,
 * which was never stored. `id` undefined: the key the event at `position` created.
 */
export async function issuedKeyOfWrite(
  deps: Pick<ApiKeyCommandDeps, 'eventStore' | 'ratePerHourLimit'>,
  userId: number,
  write: { readonly position: bigint },
  id?: number,
): Promise<Omit<IssuedApiKey, 'key'>> {
  const history = await deps.eventStore.readStream(apiKeyStreamId(userId));
  const keyId =
    id ??
    (
      history.find((e) => e.position === write.position && e.type === 'ApiKeyCreated')?.data as
        { id?: number } | undefined
    )?.id;
  const state = history.reduce(
    (current, event) => apiKeyDecider.evolve(current, event as unknown as Parameters<typeof apiKeyDecider.evolve>[1]),
    apiKeyDecider.initialState(),
  );
  const key = keyId === undefined ? undefined : state.keys.get(keyId);
  if (keyId === undefined || !key) throw new Error(`no API key written at ${write.position}`);
  return {
    id: keyId,
    keyId: key.keyId,
    name: key.name,
    createdAt: key.createdAt,
    expiresAt: key.expiresAt,
    readOnly: key.readOnly,
    ratePerHour: quotaOf(key.ratePerHour, deps.ratePerHourLimit),
  };
}
