import { randomBytes } from 'node:crypto';
import type { ApiKeyCommand, ApiKeysState } from '../domain/apikey/api-key-decide';
import { assertMayCreateApiKey, decide, foldApiKeys } from '../domain/apikey/api-key-decide';
import type { ApiKeyEventData } from '../domain/apikey/api-key-events';
import { apiKeyStreamId } from '../domain/apikey/api-key-events';
import { assertInteractiveSession } from '../domain/auth/caller';
import { formatApiKey, newKeyId, newSecret } from '../domain/auth/api-key-format';
import type { EventMetadata } from '../domain/event';
import type { SecretHasher } from '../infra/auth/secret-hasher';
import type { EventStore, RecordedEvent } from '../infra/event-store/event-store';
import type { DirectoryReader } from '../projections/directory/directory-reader';
import { handleCommand } from './command-handler';
import { nextId } from './id-sequence';
import type { RequestInfo } from './resource-command-runner';

export type ApiKeyCommandDeps = {
  readonly eventStore: EventStore;
  readonly directory: DirectoryReader;
  readonly clock: () => Date;
  readonly hasher: SecretHasher;
  readonly cap: number;
};

/** What creation and rotation answer: the only place the plaintext key ever appears. */
export type IssuedApiKey = {
  readonly id: number;
  readonly key: string;
  readonly keyId: string;
  readonly name: string;
  readonly createdAt: string;
  readonly expiresAt: string;
};

export type ApiKeyCommandResult<T> = { readonly position: bigint | undefined; readonly answer: T };

const fold = (events: readonly RecordedEvent[]): ApiKeysState => foldApiKeys(events as unknown as ApiKeyEventData[]);

function metadataOf(request: RequestInfo, now: string): EventMetadata {
  return { actor: request.caller.actor, correlationId: request.correlationId, at: now };
}

async function run(deps: ApiKeyCommandDeps, userId: number, command: ApiKeyCommand, now: string) {
  return handleCommand(deps.eventStore, apiKeyStreamId(userId), fold, (state) => decide(command, state, { now, cap: deps.cap }), command.metadata);
}

export async function createApiKey(
  deps: ApiKeyCommandDeps,
  request: RequestInfo,
  body: { readonly name: string; readonly expiresInDays: number },
): Promise<ApiKeyCommandResult<IssuedApiKey>> {
  const { caller } = request;
  assertInteractiveSession(caller);
  assertMayCreateApiKey(await deps.directory.viewer(caller.userId));
  const keyId = newKeyId(randomBytes);
  const secret = newSecret(keyId, randomBytes);
  const secretHash = await deps.hasher.hash(secret);
  const now = deps.clock().toISOString();
  const metadata = metadataOf(request, now);
  const id = await nextId(deps.eventStore, 'apikey', metadata);
  const command: ApiKeyCommand = {
    type: 'CreateApiKey',
    data: { userId: caller.userId, id, keyId, name: body.name, secretHash, expiresInDays: body.expiresInDays },
    metadata,
  };
  const { position, events } = await run(deps, caller.userId, command, now);
  const [event] = events;
  if (event?.type !== 'ApiKeyCreated') throw new Error('CreateApiKey must record ApiKeyCreated');
  const { name, createdAt, expiresAt } = event.data;
  return { position, answer: { id, key: formatApiKey(keyId, secret), keyId, name, createdAt, expiresAt } };
}

export async function revokeApiKey(deps: ApiKeyCommandDeps, request: RequestInfo, id: number): Promise<ApiKeyCommandResult<null>> {
  const { caller } = request;
  assertInteractiveSession(caller);
  const now = deps.clock().toISOString();
  const command: ApiKeyCommand = { type: 'RevokeApiKey', data: { userId: caller.userId, id }, metadata: metadataOf(request, now) };
  const { position } = await run(deps, caller.userId, command, now);
  return { position, answer: null };
}

/** A new secret for the same key (same id, keyId, name, expiry and quota); the old one keeps its grace. */
export async function rotateApiKey(
  deps: ApiKeyCommandDeps,
  request: RequestInfo,
  id: number,
  graceHours: number,
): Promise<ApiKeyCommandResult<IssuedApiKey>> {
  const { caller } = request;
  assertInteractiveSession(caller);
  const stream = fold(await deps.eventStore.readStream(apiKeyStreamId(caller.userId)));
  const existing = stream.keys.get(id);
  // The keyId is needed before hashing (the checksum covers it); decide checks everything again.
  const keyId = existing?.keyId ?? 'svc_live_0000000000000000';
  const secret = newSecret(keyId, randomBytes);
  const secretHash = existing ? await deps.hasher.hash(secret) : '';
  const now = deps.clock().toISOString();
  const command: ApiKeyCommand = {
    type: 'RotateApiKey',
    data: { userId: caller.userId, id, secretHash, graceHours },
    metadata: metadataOf(request, now),
  };
  const { position, state } = await run(deps, caller.userId, command, now);
  const key = state.keys.get(id);
  if (!key || key.keyId !== keyId) throw new Error('a rotated key must exist');
  return {
    position,
    answer: { id, key: formatApiKey(keyId, secret), keyId, name: key.name, createdAt: key.createdAt, expiresAt: key.expiresAt },
  };
}
