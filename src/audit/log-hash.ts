import { hash as sha } from 'node:crypto';
import type { ChainHead, ChainMismatch, ChainReport } from '../ports/log-integrity';

/**
 * The hash of the tamper-evident log (docs/architecture.md "A tamper-evident log"), shared by
 * every store that keeps a chain (the embedded one, PostgreSQL): each event's hash is SHA-256 over
 * the previous hashed event's hash and the event's stored bytes (stream, revision, type, and the
 * very JSON texts of data and metadata). The first event of a chain links to the empty hash
 * (GENESIS). Where the chain is kept and when it is computed is each store's business; what is
 * hashed, and how a chain is checked, is here, once.
 */

export const GENESIS = '';

/** Characters JSON.stringify would escape in a string (and any surrogate, to be safe): the rare, slow case. */
// eslint-disable-next-line no-control-regex -- the control characters are what JSON escapes
const needsEscape = /["\\\u0000-\u001f\ud800-\udfff]/;

/** Events up to this size are written into one reused buffer to be hashed; larger ones are hashed as one string. */
const SCRATCH_BYTES = 16 * 1024;
const scratch = Buffer.allocUnsafe(SCRATCH_BYTES);
/** Views of the scratch's first n bytes, kept: one view for each length seen, not one per event. */
const views = new Map<number, Buffer>();
const HEX = Buffer.from('0123456789abcdef', 'latin1');
const [NL, QUOTE, COMMA, OPEN, CLOSE, ZERO, BACKSLASH] = [0x0a, 0x22, 0x2c, 0x5b, 0x5d, 0x30, 0x5c];

/**
 * Writes a string's JSON text (as JSON.stringify writes it) at n; returns the end. A stream id or
 * a type is short and ASCII with nothing to escape: copied a character at a time, which costs
 * less than a call into the native encoder; anything else is written as JSON.stringify gives it.
 */
function writeJsonString(s: string, n: number): number {
  if (s.length <= 64) {
    scratch[n] = QUOTE;
    let i = 0;
    for (; i < s.length; i += 1) {
      const c = s.charCodeAt(i);
      if (c < 0x20 || c >= 0x7f || c === QUOTE || c === BACKSLASH) break;
      scratch[n + 1 + i] = c;
    }
    if (i === s.length) {
      scratch[n + 1 + i] = QUOTE;
      return n + 2 + i;
    }
  }
  return n + scratch.write(needsEscape.test(s) ? JSON.stringify(s) : `"${s}"`, n, 'utf8');
}

/** Made once: a BigInt made in the check below would be a heap object allocated for every event. */
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Writes a revision's decimal digits at n, without making a string of them; returns the end. */
function writeRevision(revision: bigint, n: number): number {
  if (revision < 0n || revision > MAX_SAFE) return n + scratch.write(`${revision}`, n, 'latin1');
  let rest = Number(revision);
  let digits = 1;
  for (let r = rest; r >= 10; r = Math.floor(r / 10)) digits += 1;
  for (let at = n + digits - 1; at >= n; at -= 1) {
    scratch[at] = ZERO + (rest % 10);
    rest = Math.floor(rest / 10);
  }
  return n + digits;
}

/**
 * The hash of one event, given the previous one's, into `into` (32 bytes): SHA-256 over the
 * UTF-8 bytes of `${previous as hex}\n${JSON.stringify([streamId, `${revision}`, type])}\n${data}\n${metadata}`
 * (pinned by test/infra/event-store/hash-chain-definition.unit.test.ts; every chained log holds
 * these hashes). The first event of a chain has no previous (empty: GENESIS).
 *
 * Computed without building that string: the parts are written as UTF-8 into one reused buffer and
 * hashed in one call. This runs in the group commit, on the commit thread, whose young heap holds
 * the whole batch being written: each scavenge copies that batch, so what the hash allocates costs
 * far more there than in a loop of its own (a joined 800-byte string, the identity's JSON, a hex
 * string and a Buffer for each event made the chain cost about 4 µs an event there, against 1.5 µs
 * alone; docs/benchmarks.md "What the figures decided"). Here an event allocates only the
 * 32-character digest.
 */
export function hashEventInto(
  into: Buffer,
  previous: Uint8Array,
  streamId: string,
  revision: bigint,
  type: string,
  data: string,
  metadata: string,
): void {
  // UTF-8 takes at most 3 bytes for each UTF-16 unit; JSON writes at most 6 (ASCII) for one.
  const most = 2 * previous.length + 6 * (streamId.length + type.length) + 3 * (data.length + metadata.length) + 64;
  let digest: string;
  if (most > SCRATCH_BYTES) {
    const identity = JSON.stringify([streamId, revision.toString(), type]);
    digest = sha('sha256', `${Buffer.from(previous).toString('hex')}\n${identity}\n${data}\n${metadata}`, 'binary');
  } else {
    let n = 0;
    for (let i = 0; i < previous.length; i += 1) {
      const byte = previous[i]!;
      scratch[n++] = HEX[byte >> 4]!;
      scratch[n++] = HEX[byte & 15]!;
    }
    scratch[n++] = NL;
    scratch[n++] = OPEN;
    n = writeJsonString(streamId, n);
    scratch[n++] = COMMA;
    scratch[n++] = QUOTE;
    n = writeRevision(revision, n);
    scratch[n++] = QUOTE;
    scratch[n++] = COMMA;
    n = writeJsonString(type, n);
    scratch[n++] = CLOSE;
    scratch[n++] = NL;
    n += scratch.write(data, n, 'utf8');
    scratch[n++] = NL;
    n += scratch.write(metadata, n, 'utf8');
    let view = views.get(n);
    if (!view) {
      if (views.size >= 4096) views.clear();
      view = scratch.subarray(0, n);
      views.set(n, view);
    }
    digest = sha('sha256', view, 'binary');
  }
  into.write(digest, 0, 'latin1');
}

const hexOut = Buffer.alloc(32);

/** The hash of one event as hex, given the previous one's as hex (GENESIS for the first). */
export function eventHash(
  previous: string,
  streamId: string,
  revision: bigint,
  type: string,
  data: string,
  metadata: string,
): string {
  hashEventInto(hexOut, Buffer.from(previous, 'hex'), streamId, revision, type, data, metadata);
  return hexOut.toString('hex');
}

export type ChainRow = readonly [
  position: bigint,
  streamId: string,
  revision: bigint,
  type: string,
  data: string,
  metadata: string,
  /** Stored hash bytes; null when the event has none; a string only when edited behind the store. */
  hash: Uint8Array | string | null,
];

/**
 * Checks a chain row by row, in log order, from the stored bytes. Events before the first hashed
 * one are unchained (a log made before hashes existed); after it, every event must carry the hash
 * its content and its predecessor's hash give. `add` answers false at the first event that does
 * not match, after which `report` names it. `chainedSince`: the position from which the log has
 * hashed every event, where it recorded it: an event there or later without a hash is missing its
 * hash, not older than the chain (hashes wiped from the start of a log would otherwise read as a
 * log made before hashes existed).
 */
export class ChainCheck {
  constructor(private readonly chainedSince?: bigint) {}

  private events = 0;
  private unchained = 0;
  private chainedFrom: bigint | null = null;
  private previous: Uint8Array = Buffer.alloc(0);
  private headPosition: bigint | null = null;
  private mismatch: ChainMismatch | null = null;
  private readonly expected = Buffer.alloc(32);

  add([position, streamId, revision, type, data, metadata, hash]: ChainRow): boolean {
    this.events += 1;
    const required = this.chainedSince !== undefined && position >= this.chainedSince;
    if (hash === null && this.chainedFrom === null && !required) {
      this.unchained += 1;
      return true;
    }
    this.chainedFrom ??= position;
    hashEventInto(this.expected, this.previous, streamId, revision, type, data, metadata);
    // A column may hold text after an edit behind the store, which is no hash.
    if (hash === null || typeof hash === 'string' || !this.expected.equals(hash)) {
      const problem = hash === null ? 'missing' : 'hash';
      this.mismatch = { position, streamId, revision, type, problem };
      return false;
    }
    this.previous = hash; // equal to expected: the row's own bytes, which the next row does not overwrite
    this.headPosition = position;
    return true;
  }

  report(): ChainReport {
    const head: ChainHead | null =
      this.headPosition === null
        ? null
        : { position: this.headPosition, hash: Buffer.from(this.previous).toString('hex') };
    return {
      events: this.events,
      unchained: this.unchained,
      chainedFrom: this.chainedFrom,
      head,
      firstMismatch: this.mismatch,
    };
  }
}
