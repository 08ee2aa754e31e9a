import type { ApiKeyRecord, ApiKeyStore, NewApiKeyRecord, RotatedSecret } from '../../api-keys/api-key-store';
import type { ProjectionStore } from '../../projections/read-model-projection';
import { postgresProjectionStore, type PostgresReadDb } from './postgres-read-db';

type Row = {
  id: string;
  key_id: string;
  user_id: string;
  name: string;
  secret_hash: string;
  grace_secret_hash: string | null;
  grace_until: string | null;
  created_at: string;
  expires_at: string;
  revoked: boolean;
  last_used_at: string | null;
  read_only: boolean;
  rate_per_hour: number | null;
};

const toRecord = (row: Row): ApiKeyRecord => ({
  id: Number(row.id),
  keyId: row.key_id,
  userId: Number(row.user_id),
  name: row.name,
  secretHash: row.secret_hash,
  graceSecretHash: row.grace_secret_hash,
  graceUntil: row.grace_until,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  revoked: row.revoked,
  lastUsedAt: row.last_used_at,
  readOnly: row.read_only,
  ratePerHour: row.rate_per_hour,
});

/**
 * Instants are the ISO 8601 text the events carry, compared and ordered by code point (collation
 * "C", whatever the database's default), as SQLite and MongoDB compare them.
 */
const KEYS_DDL = `create table if not exists api_keys (
    id bigint primary key,
    key_id text not null unique,
    user_id bigint not null,
    name text not null,
    secret_hash text not null,
    grace_secret_hash text,
    grace_until text,
    created_at text collate "C" not null,
    expires_at text not null,
    revoked boolean not null default false,
    position bigint not null
  );
  alter table api_keys add column if not exists read_only boolean not null default false;
  alter table api_keys add column if not exists rate_per_hour integer;
  create index if not exists api_keys_by_user on api_keys (user_id, revoked, created_at desc, id desc)`;

/**
 * The store's statements, its kept schema spliced in: a name PostgresReadDb.connect has checked
 * (SCHEMA_NAME), never a caller's value.
 */
function statements(kept: string) {
  const usage = `"${kept}".api_key_usage`;
  const select = `select k.id, k.key_id, k.user_id, k.name, k.secret_hash, k.grace_secret_hash, k.grace_until,
      k.created_at, k.expires_at, k.revoked, u.last_used_at, k.read_only, k.rate_per_hour
    from api_keys k left join ${usage} u on u.id = k.id`;
  return {
    usageDdl: `create table if not exists ${usage} (id bigint primary key, last_used_at text collate "C" not null)`,
    byKeyId: `${select} where k.key_id = $1`,
    listForUser: `${select} where k.user_id = $1 and not k.revoked order by k.created_at desc, k.id desc`,
    /** A later use wins: an earlier instant than the recorded one changes nothing. */
    recordUse: `insert into ${usage} as u (id, last_used_at) values ($1, $2)
      on conflict (id) do update set last_used_at = excluded.last_used_at where excluded.last_used_at > u.last_used_at`,
    /** Creation is a key's first event: inserted once, a replay finds the row and changes nothing. */
    created: `insert into api_keys (id, key_id, user_id, name, secret_hash, created_at, expires_at, position,
        read_only, rate_per_hour)
      values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
      on conflict (id) do nothing`,
    revoked: 'update api_keys set revoked = true, position = $2 where id = $1 and position < $2',
    rotated: `update api_keys set secret_hash = $3, grace_secret_hash = $4, grace_until = $5, position = $2
      where id = $1 and position < $2`,
  };
}

/**
 * The `apikeys` read model on PostgreSQL. `api_keys` is projected (reset and digested with the
 * projection); `api_key_usage` holds the lastUsedAt the API processes record, outside the event
 * log, in the kept schema (PostgresReadDb.keptSchema), so a blue/green rebuild, which builds
 * `api_keys` anew from the log, leaves it as it was. Unlike its siblings it carries no uses over
 * from a generation's own schema: no PostgreSQL generation ever kept them there.
 */
export class PostgresApiKeyStore implements ApiKeyStore {
  readonly projectionStore: ProjectionStore;

  private constructor(
    private readonly read: PostgresReadDb,
    private readonly sql: ReturnType<typeof statements>,
  ) {
    this.projectionStore = postgresProjectionStore(read, ['api_keys']);
  }

  static async open(read: PostgresReadDb): Promise<PostgresApiKeyStore> {
    const sql = statements(read.keptSchema);
    await read.ensure(KEYS_DDL);
    await read.ensure(sql.usageDdl, read.keptSchema);
    return new PostgresApiKeyStore(read, sql);
  }

  async byKeyId(keyId: string): Promise<ApiKeyRecord | null> {
    const { rows } = await this.read.query<Row>(this.sql.byKeyId, [keyId]);
    const row = rows[0];
    return row ? toRecord(row) : null;
  }

  async listForUser(userId: number): Promise<ApiKeyRecord[]> {
    const { rows } = await this.read.query<Row>(this.sql.listForUser, [userId]);
    return rows.map(toRecord);
  }

  async recordUse(id: number, at: string): Promise<void> {
    await this.read.query(this.sql.recordUse, [id, at]);
  }

  async keyCreated(key: NewApiKeyRecord, position: bigint): Promise<void> {
    await this.read.query(this.sql.created, [
      key.id,
      key.keyId,
      key.userId,
      key.name,
      key.secretHash,
      key.createdAt,
      key.expiresAt,
      position.toString(),
      key.readOnly,
      key.ratePerHour,
    ]);
  }

  async keyRevoked(id: number, position: bigint): Promise<void> {
    await this.read.query(this.sql.revoked, [id, position.toString()]);
  }

  async keyRotated(id: number, secret: RotatedSecret, position: bigint): Promise<void> {
    await this.read.query(this.sql.rotated, [
      id,
      position.toString(),
      secret.secretHash,
      secret.graceSecretHash,
      secret.graceUntil,
    ]);
  }
}
