import { inSpan } from '../observability/tracing';
import { createHash, randomUUID } from 'node:crypto';
import os from 'node:os';
import type { Request, Response } from 'express';
import { runUnderClaim } from '../commands/idempotent-attempt';
import { DomainError } from '../domain/errors';
import type {
  IdempotencyClaim,
  IdempotencyKeys,
  IdempotencyRecord,
  RecordedWrite,
  RememberedAnswer,
} from '../ports/idempotency-keys';
import { IdempotencyClaimLostError } from '../ports/idempotency-keys';
import { problemBody, problemForKind, PROBLEM_TYPES } from './problem';

/**
 * Idempotency-Key (IETF httpapi draft "The Idempotency-Key HTTP Header Field", with Stripe's
 * semantics) for the POST routes that change state:
 *
 * - the first completed answer (status and body) is kept for 24 hours per (caller, key) (on the
 *   internal routes the caller is whoever holds the directory token), in the
 *   event store, where every process and a restarted one find it;
 * - a retry with the same key and the same request replays it with `Idempotent-Replayed: true`;
 * - the same key with another request (method, path, query or body) is a 422
 *   `/problems/idempotency-key-reused`;
 * - a retry while the first attempt is still running is a 409 `/problems/idempotency-key-in-progress`;
 * - an attempt that died after its write was stored (the store records the write in the append's
 *   own transaction) is answered from that write by the route's `resume`, never written again.
 *
 * Answers that carry a secret are kept without it (the route names the fields): the replay of a
 * created or rotated API key is the same record with `key` absent.
 */

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * After this, a claim whose holder is not known to have died may be taken over anyway (the store's fencing
 * keeps the holder from writing).
 */
export const IDEMPOTENCY_LEASE_MS = 60_000;
const MAX_KEY_LENGTH = 255;

/** The attempts this process is running, by owner token. */
const running = new Set<string>();
const host = os.hostname();

/** The header's value (an RFC 8941 string or a bare token), undefined when absent; a 400 when unusable. */
export function idempotencyKeyOf(req: Request): string | undefined {
  const raw = req.header(IDEMPOTENCY_KEY_HEADER);
  if (raw === undefined) return undefined;
  const key = /^"(.*)"$/.exec(raw)?.[1] ?? raw;
  if (key.length === 0 || key.length > MAX_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(key)) {
    throw new DomainError('validation', 'invalid Idempotency-Key', [
      { field: IDEMPOTENCY_KEY_HEADER, message: `1 to ${MAX_KEY_LENGTH} visible ASCII characters, without spaces` },
    ]);
  }
  return key;
}

/** JSON with its object keys sorted: two bodies that differ only in key order are one request. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** What makes two requests one (method, path with query, body whatever its key order), hashed. */
export function requestFingerprint(method: string, url: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${url}\n${canonical(body ?? {})}`)
    .digest('base64url');
}

const fingerprintOf = (req: Request): string => requestFingerprint(req.method, req.originalUrl, req.body);

/** Whether the holder of a claim may still be at work: on this host a dead process is known at once. */
function holderMayBeRunning(record: IdempotencyRecord, now: number): boolean {
  if (record.claimedAt === 0 || now - record.claimedAt >= IDEMPOTENCY_LEASE_MS) return false;
  const [ownerHost, pidText] = record.owner.split('/');
  if (ownerHost !== host) return true;
  const pid = Number(pidText);
  if (pid === process.pid) return running.has(record.owner);
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** What a problem answer would be, when it is one to remember: a decision, not passing trouble. */
function rememberedProblem(error: unknown): RememberedAnswer | undefined {
  if (!(error instanceof DomainError)) return undefined;
  if (!['validation', 'forbidden', 'not_found', 'conflict'].includes(error.kind)) return undefined;
  const key = problemForKind[error.kind];
  return {
    status: PROBLEM_TYPES[key].status,
    contentType: 'application/problem+json',
    body: JSON.stringify(problemBody(key, error.message, error.errors, error.extensions)),
  };
}

/** The text kept of a JSON answer: without the fields that hold a secret. */
function withoutSecrets(text: string, secretFields: readonly string[]): string {
  if (secretFields.length === 0 || text === '') return text;
  const body = JSON.parse(text) as Record<string, unknown>;
  for (const field of secretFields) delete body[field];
  return JSON.stringify(body);
}

function replay(res: Response, answer: RememberedAnswer): void {
  res.status(answer.status);
  res.setHeader('Idempotent-Replayed', 'true');
  res.setHeader('Cache-Control', 'no-store');
  if (answer.contentType) res.setHeader('Content-Type', answer.contentType);
  res.end(answer.body);
}

export type IdempotentServing = {
  readonly keys: IdempotencyKeys;
  /** Whose keys these are: `user:<id>` for a user, `internal` for the holders of the directory token. */
  readonly scope: string;
  readonly key: string;
  readonly req: Request;
  readonly res: Response;
  readonly now: () => number;
  /**
   * Runs the route's handler; answers the JSON text it returned (not sent yet), or undefined when it answered
   * by itself (its status, no body).
   */
  readonly run: () => Promise<string | undefined>;
  /** Sends a JSON text `run` or `resume` returned, once it is remembered. */
  readonly send: (text: string) => void;
  /** Answers from the write a dead attempt stored (same contract as `run`). */
  readonly resume: (write: RecordedWrite) => Promise<string | undefined>;
  readonly secretFields: readonly string[];
  /** What makes two requests one, when the route says it (a multipart body); by default `requestFingerprint`. */
  readonly fingerprint?: string;
};

/** Serves a request that carries an Idempotency-Key (see the top of this file). */
export async function serveIdempotently(serving: IdempotentServing): Promise<void> {
  const { keys, key, req, res, now } = serving;
  const ref = { scope: serving.scope, key };
  const fingerprint = serving.fingerprint ?? fingerprintOf(req);
  // A claim can be lost to a concurrent first attempt between the read and the claim: read again.
  for (let round = 0; round < 3; round++) {
    const at = now();
    const record = await keys.readIdempotencyKey(ref, at);
    if (record && record.fingerprint !== fingerprint) {
      throw new IdempotencyKeyProblem(
        'idempotencyKeyReused',
        'this Idempotency-Key was used for a different request; use a new key',
      );
    }
    if (record?.answer) return replay(res, record.answer);
    if (record && holderMayBeRunning(record, at)) throw inProgress();
    const claim: IdempotencyClaim = { ...ref, owner: `${host}/${process.pid}/${randomUUID()}` };
    const claimed = await inSpan(
      'idempotency claim',
      { 'idempotency.taken_over': record !== undefined },
      async (span) => {
        const won = await keys.claimIdempotencyKey(
          claim,
          { fingerprint, now: at, expiresAt: at + IDEMPOTENCY_TTL_MS },
          record?.owner,
        );
        span?.setAttribute('idempotency.claimed', won);
        return won;
      },
    );
    if (!claimed) continue;
    return attempt(serving, claim, record?.write);
  }
  throw inProgress();
}

async function attempt(
  serving: IdempotentServing,
  claim: IdempotencyClaim,
  write: RecordedWrite | undefined,
): Promise<void> {
  const { keys, res } = serving;
  running.add(claim.owner);
  try {
    const text = await runUnderClaim(claim, () => (write ? serving.resume(write) : serving.run()));
    // A route that answered by itself with anything but success (none does today) is not remembered.
    if (text === undefined && res.statusCode >= 300) return await keys.releaseIdempotencyKey(claim);
    const answer: RememberedAnswer =
      text === undefined
        ? { status: res.statusCode, contentType: null, body: '' }
        : {
            status: res.statusCode,
            contentType: 'application/json; charset=utf-8',
            body: withoutSecrets(text, serving.secretFields),
          };
    await keys.completeIdempotencyKey(claim, answer);
    if (text !== undefined) serving.send(text);
  } catch (error) {
    const problem = rememberedProblem(error);
    if (problem) await keys.completeIdempotencyKey(claim, problem);
    else await keys.releaseIdempotencyKey(claim);
    throw error instanceof IdempotencyClaimLostError ? inProgress() : error;
  } finally {
    running.delete(claim.owner);
  }
}

/** A problem of the idempotency layer itself: the error handler answers it with its own type. */
export class IdempotencyKeyProblem extends Error {
  constructor(
    readonly problem: 'idempotencyKeyReused' | 'idempotencyKeyInProgress',
    message: string,
  ) {
    super(message);
    this.name = 'IdempotencyKeyProblem';
  }
}

const inProgress = () =>
  new IdempotencyKeyProblem(
    'idempotencyKeyInProgress',
    'a request with this Idempotency-Key is still being served; retry after a moment',
  );
