import type Database from 'better-sqlite3';
import type { ApiKeyRecord, ApiKeyStore, NewApiKeyRecord, RotatedSecret } from '../../api-keys/api-key-store';
import type { ProjectionStore } from '../../projections/read-model-projection';
import type { SqliteReadDb } from './sqlite-read-db';
import { readScope } from '../../projections/read-scopes';
import { ReadSnapshotMemo } from '../../projections/read-snapshot-memo';
import { sqliteProjectionStore } from './sqlite-read-db';

type Row = {
  id: number;
  key_id: string;
  user_id: number;
  name: string;
  secret_hash: string;
  grace_secret_hash: string | null;
  grace_until: string | null;
  created_at: string;
  expires_at: string;
  revoked: number;
  read_only: number;
  rate_per_hour: number | null;
};

const toRecord = (row: Row, lastUsedAt: string | null): ApiKeyRecord => ({
  id: row.id,
  keyId: row.key_id,
  userId: row.user_id,
  name: row.name,
  secretHash: row.secret_hash,
  graceSecretHash: row.grace_secret_hash,
  graceUntil: row.grace_until,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  revoked: row.revoked === 1,
  lastUsedAt,
  readOnly: row.read_only === 1,
  ratePerHour: row.rate_per_hour,
});

const SELECT = `select k.id, k.key_id, k.user_id, k.name, k.secret_hash, k.grace_secret_hash, k.grace_until,
  k.created_at, k.expires_at, k.revoked, k.read_only, k.rate_per_hour from api_keys k`;

const USAGE_TABLE = `create table if not exists api_key_usage (
  id integer primary key,
  last_used_at text not null
) strict`;

/** A later use wins: an earlier instant than the recorded one changes nothing. */
const RECORD_USE = `insert into api_key_usage (id, last_used_at) values (?, ?)
  on conflict (id) do update set last_used_at = excluded.last_used_at where excluded.last_used_at > api_key_usage.last_used_at`;

/**
 * The `apikeys` read model on the embedded SQLite read database. `api_keys` is projected (reset
 * and digested with the projection); `api_key_usage` holds the lastUsedAt the API processes
 * record, outside the event log, among the records kept across generations (SqliteReadDb.kept),
 * so a blue/green rebuild, which builds `api_keys` anew from the log, leaves it as it was.
 */
export class SqliteApiKeyStore implements ApiKeyStore {
  readonly projectionStore: ProjectionStore;
  /** The keys checked lately, each until the keys' scope changes (see byKeyId); a few hundred bytes each. */
  private readonly keyChecks = new ReadSnapshotMemo((scope) => this.readDb.feed.version(scope), 1_000);
  private readonly statements: {
    byKeyId: Database.Statement<[string], Row>;
    listForUser: Database.Statement<[number], Row>;
    usageOf: Database.Statement<[number], string>;
    usagesOf: Database.Statement<[string], { id: number; last_used_at: string }>;
    recordUse: Database.Statement<[number, string]>;
    created: Database.Statement<unknown[]>;
    revoked: Database.Statement<unknown[]>;
    rotated: Database.Statement<unknown[]>;
  };

  constructor(private readonly readDb: SqliteReadDb) {
    const db = readDb.db;
    db.exec(`create table if not exists api_keys (
      id integer primary key,
      key_id text not null unique,
      user_id integer not null,
      name text not null,
      secret_hash text not null,
      grace_secret_hash text,
      grace_until text,
      created_at text not null,
      expires_at text not null,
      revoked integer not null default 0,
      position integer not null,
      read_only integer not null default 0,
      rate_per_hour integer
    ) strict`);
    addScopeColumns(db);
    db.exec('create index if not exists api_keys_by_user on api_keys (user_id, revoked, created_at desc, id desc)');
    const kept = readDb.kept;
    kept.exec(USAGE_TABLE);
    if (kept !== db) carryOverUsage(db, kept);
    this.statements = {
      byKeyId: db.prepare(`${SELECT} where k.key_id = ?`),
      listForUser: db.prepare(`${SELECT} where k.user_id = ? and k.revoked = 0 order by k.created_at desc, k.id desc`),
      usageOf: kept.prepare<[number], string>('select last_used_at from api_key_usage where id = ?').pluck(),
      usagesOf: kept.prepare('select id, last_used_at from api_key_usage where id in (select value from json_each(?))'),
      recordUse: kept.prepare(RECORD_USE),
      created:
        db.prepare(`insert into api_keys (id, key_id, user_id, name, secret_hash, created_at, expires_at, position,
          read_only, rate_per_hour)
        values (@id, @keyId, @userId, @name, @secretHash, @createdAt, @expiresAt, @position, @readOnly, @ratePerHour)
        on conflict (id) do nothing`),
      revoked: db.prepare(
        'update api_keys set revoked = 1, position = @position where id = @id and position < @position',
      ),
      rotated: db.prepare(`update api_keys set secret_hash = @secretHash, grace_secret_hash = @graceSecretHash,
        grace_until = @graceUntil, position = @position where id = @id and position < @position`),
    };
    this.projectionStore = sqliteProjectionStore(readDb, ['api_keys']);
  }

  /**
   * Asked at every request made with a key: remembered until a key changes (created, revoked,
   * rotated, used), here or in another process, so a revocation still counts at the next request.
   * Kept by a memo of its own that READ_MEMO=off leaves on: this is the credential check (issue 22
   * item 3: a cached key check), as a bearer's verified token is remembered whatever READ_MEMO says,
   * not an answer of the read model; read cold it cost an API-key request 3% of its CPU over a bearer's.
   */
  async byKeyId(keyId: string): Promise<ApiKeyRecord | null> {
    return this.keyChecks.get(readScope.apiKeys, keyId, () => {
      const row = this.statements.byKeyId.get(keyId);
      return row ? toRecord(row, this.statements.usageOf.get(row.id) ?? null) : null;
    });
  }

  async listForUser(userId: number): Promise<ApiKeyRecord[]> {
    const rows = this.statements.listForUser.all(userId);
    if (rows.length === 0) return [];
    const used = new Map(
      this.statements.usagesOf.all(JSON.stringify(rows.map((r) => r.id))).map((u) => [u.id, u.last_used_at]),
    );
    return rows.map((row) => toRecord(row, used.get(row.id) ?? null));
  }

  async recordUse(id: number, at: string): Promise<void> {
    if (this.statements.recordUse.run(id, at).changes > 0) this.readDb.feed.touch(readScope.apiKeys);
  }

  async keyCreated(key: NewApiKeyRecord, position: bigint): Promise<void> {
    const row = { ...key, readOnly: key.readOnly ? 1 : 0, position };
    if (this.statements.created.run(row).changes > 0) this.readDb.feed.touch(readScope.apiKeys);
  }

  async keyRevoked(id: number, position: bigint): Promise<void> {
    if (this.statements.revoked.run({ id, position }).changes > 0) this.readDb.feed.touch(readScope.apiKeys);
  }

  async keyRotated(id: number, secret: RotatedSecret, position: bigint): Promise<void> {
    if (this.statements.rotated.run({ id, position, ...secret }).changes > 0) this.readDb.feed.touch(readScope.apiKeys);
  }
}

/**
 * A read model built before keys had a scope and a quota lacks their columns: added as it opens,
 * with what such a key means (not read-only, the service's quota), so it needs no rebuild.
 */
function addScopeColumns(db: Database.Database): void {
  const info = db.prepare('pragma table_info(api_keys)').all() as { name: string }[];
  const columns = new Set(info.map((c) => c.name));
  if (!columns.has('read_only')) db.exec('alter table api_keys add column read_only integer not null default 0');
  if (!columns.has('rate_per_hour')) db.exec('alter table api_keys add column rate_per_hour integer');
}

/**
 * Uses recorded before they were kept across generations lie in the generation's own
 * `api_key_usage`: carried into the kept records as the store opens (a later use wins), so an
 * upgrade loses none.
 */
function carryOverUsage(db: Database.Database, kept: Database.Database): void {
  const own = db.prepare("select 1 from sqlite_master where type = 'table' and name = 'api_key_usage'").get();
  if (!own) return;
  const rows = db.prepare('select id, last_used_at from api_key_usage').all() as { id: number; last_used_at: string }[];
  const record = kept.prepare(RECORD_USE);
  kept.transaction(() => {
    for (const row of rows) record.run(row.id, row.last_used_at);
  })();
}
