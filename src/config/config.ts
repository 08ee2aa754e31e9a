import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { DEFAULT_MONGO_QUERY_TIMEOUT_MS } from './mongo-client-options';
import { secretWeakness } from './secret-strength';
import {
  connectionStringProblem,
  eventStoreConnectionString,
  mongodbConnectionString,
  postgresConnectionString,
  redisConnectionString,
  type ConnectionStringRule,
} from './connection-string';

const optionalUrl = z.preprocess((v) => (v === '' ? undefined : v), z.url().optional());
/** A store's connection string: scheme-aware, since z.url() refuses replica-set and cluster hosts. */
const optionalConnectionString = (rule: ConnectionStringRule) =>
  z.preprocess(
    (v) => (v === '' ? undefined : v),
    z
      .string()
      .superRefine((value, ctx) => {
        const problem = connectionStringProblem(value, rule);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      })
      .optional(),
  );
const optionalSecret = z.preprocess((v) => (v === '' ? undefined : v), z.string().min(32).optional());
const optionalText = z.preprocess((v) => (v === '' ? undefined : v), z.string().max(500).optional());
const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/** An operator as OPERATOR_TOKENS names one: who a parked event's retry or skip is recorded as. */
export type OperatorToken = { readonly name: string; readonly token: string };

/**
 * `name=token` entries separated by commas: each name 1 to 100 printable characters without `=` or
 * `,`, each token at least 32 characters; no name and no token twice.
 */
const operatorTokens = z.preprocess(
  (v) =>
    typeof v === 'string'
      ? v
          .split(',')
          .map((entry) => entry.trim())
          .filter(Boolean)
          .map((entry) => {
            const at = entry.indexOf('=');
            return at < 0
              ? { name: entry, token: '' }
              : { name: entry.slice(0, at).trim(), token: entry.slice(at + 1) };
          })
      : v,
  z
    .array(
      z.object({
        name: z
          .string()
          .min(1)
          .max(100)
          .regex(/^[^\p{Cc}=,]+$/u, 'printable characters other than = and ,'),
        token: z.string().min(32, 'each token at least 32 characters (name=token)'),
      }),
    )
    .refine((list) => new Set(list.map((o) => o.name)).size === list.length, 'a name is given twice')
    .refine((list) => new Set(list.map((o) => o.token)).size === list.length, 'a token is given twice')
    .default([]),
);

/**
 * What Express's `trust proxy` takes: false (the socket's peer is the client), a hop count, or the proxies'
 * addresses.
 */
export type TrustProxy = boolean | number | string;
const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);
const proxyAddress = (item: string): boolean => {
  if (PROXY_NAMES.has(item)) return true;
  const [address = '', bits, ...rest] = item.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  // A mask may be a prefix length or, for IPv4, a dotted netmask.
  return /^[0-9]{1,3}$/.test(bits) ? Number(bits) <= (family === 4 ? 32 : 128) : family === 4 && isIP(bits) === 4;
};
/**
 * TRUST_PROXY: off (`false`, the default: the TCP peer is the client), `true` (every hop: only when
 * nothing reaches the service but through proxies), a hop count, or the proxies' addresses and
 * subnets (comma-separated; `loopback`, `linklocal`, `uniquelocal` name the usual ranges).
 */
const trustProxy = z
  .string()
  .default('false')
  .transform((value, ctx): TrustProxy => {
    const text = value.trim();
    if (text === '' || text === 'false') return false;
    if (text === 'true') return true;
    if (/^[0-9]+$/.test(text)) return Number(text) === 0 ? false : Number(text);
    const items = text.split(',').map((item) => item.trim());
    if (items.every(proxyAddress)) return items.join(',');
    ctx.addIssue({
      code: 'custom',
      message: 'false, true, a hop count, or comma-separated proxy addresses or subnets',
    });
    return z.NEVER;
  });

export const configSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** The address to listen on; unset: loopback (127.0.0.1) outside production, every interface in production. */
  HOST: optionalText,
  /**
   * Browser origins allowed to call the API (CORS), comma-separated (`https://app.example.org`);
   * none by default. Preflights of an allowed origin are answered before authentication.
   */
  CORS_ORIGINS: z
    .string()
    .default('')
    .transform((value) =>
      value
        .split(',')
        .map((o) => o.trim())
        .filter((o) => o !== ''),
    )
    .pipe(z.array(z.string().regex(/^https?:\/\/[^/\s]+$/, 'each origin is scheme://host[:port], no path'))),
  DATA_DIR: z.string().min(1).default('./data'),
  EVENTSTORE_URL: optionalConnectionString(eventStoreConnectionString),
  MONGODB_URL: optionalConnectionString(mongodbConnectionString),
  /**
   * PostgreSQL (`postgresql://user:password@host:5432/db`): the backend for several machines, every store
   * in one database (the log, the read models, leases, generations, idempotency records, key rows and
   * uploaded files), instead of DATA_DIR or EventStoreDB and MongoDB.
   */
  POSTGRES_URL: optionalConnectionString(postgresConnectionString),
  /**
   * The schema of the log in POSTGRES_URL's database; the read models' generations live in
   * `<schema>_read`, `<schema>_read_g1`, …, uploaded files in `<schema>_files`.
   */
  POSTGRES_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,31}$/, 'a lowercase identifier of at most 32 characters (letters, digits, _)')
    .default('resources'),
  /**
   * The server-side bound (statement_timeout) of every PostgreSQL statement a request or a
   * projection makes (the log's, the read models', the files', the personal-data keys'); past it:
   * a 503. The client gives a statement up 1 s later, where the network no longer answers.
   */
  POSTGRES_STATEMENT_TIMEOUT_MS: positiveInt(5000),
  /**
   * Connections each pool of a process may open on PostgreSQL (the log's, the read models', the
   * files'); a process holds at most about 3 × this + 4, each rebuild one pool more while it runs.
   */
  POSTGRES_POOL_SIZE: positiveInt(10),
  REDIS_URL: optionalConnectionString(redisConnectionString),
  /** Prefix of every Redis key this service writes: processes sharing a budget share it. */
  REDIS_KEY_PREFIX: z.string().min(1).max(64).default('prs:'),
  AUTH_JWT_SECRET: optionalSecret,
  AUTH_JWKS_URL: optionalUrl,
  /** Checked against the token's `aud` and `iss` when set; both required with AUTH_JWKS_URL. */
  AUTH_JWT_AUDIENCE: optionalText,
  AUTH_JWT_ISSUER: optionalText,
  DIRECTORY_SYNC_TOKEN: optionalSecret,
  /** Reads /internal/metrics alone (`Authorization: Bearer`): a scraper need not hold the directory's write token. */
  METRICS_TOKEN: optionalSecret,
  /**
   * Named operators' own credentials (`name=token,…`): `Authorization: Bearer <token>` opens the read
   * models' operator routes (/internal/read-models…) and the metrics, never the directory's writes,
   * and a parked event's retry or skip is recorded under the name the token proves.
   */
  OPERATOR_TOKENS: operatorTokens,
  API_KEY_CAP: positiveInt(10),
  RATE_LIMIT_PER_HOUR: positiveInt(1000),
  /** Which hops in front of the service are trusted to name the client (X-Forwarded-For). */
  TRUST_PROXY: trustProxy,
  /** API-key secrets verified (argon2) at once by one process; more wait, up to API_KEY_VERIFY_WAIT_MS, then 503. */
  API_KEY_VERIFY_CONCURRENCY: positiveInt(Math.max(1, availableParallelism())),
  API_KEY_VERIFY_WAIT_MS: z.coerce.number().int().min(0).max(60_000).default(1000),
  UPLOAD_MAX_MB: positiveInt(3),
  UPLOAD_BIG_MAX_MB: positiveInt(100),
  /** An upload no resource references is deleted after this many hours. */
  UPLOAD_ORPHAN_HOURS: positiveInt(24),
  /** How long a command waits for its events to reach the read models before answering 503. */
  PROJECTION_WAIT_MS: positiveInt(5000),
  /**
   * After this many failures of one event (not the store's passing trouble) a projection parks it
   * and goes on with the next events; an operator retries or skips it (/internal/read-models/{name}/parked).
   */
  PROJECTION_PARK_AFTER: z.coerce.number().int().min(1).max(1000).default(5),
  /** The server-side bound (maxTimeMS) of every MongoDB read; past it the read fails and a request answers 503. */
  MONGO_QUERY_TIMEOUT_MS: positiveInt(DEFAULT_MONGO_QUERY_TIMEOUT_MS),
  /** all: serve the API and run the projections (under their leases); api: serve only; projector: project only. */
  ROLE: z.enum(['all', 'api', 'projector']).default('all'),
  /** After SIGTERM: how long in-flight requests may run to their end before the process exits anyway. */
  SHUTDOWN_GRACE_SECONDS: z.coerce.number().int().min(0).max(3600).default(30),
  /**
   * After SIGTERM: how long the process keeps taking connections (readiness 503, every answer with
   * `Connection: close`) while load balancers stop sending it traffic, before it closes its listener
   * and drains; counted within the grace. SIGINT (a developer's Ctrl-C) closes the listener at once.
   */
  SHUTDOWN_LISTEN_SECONDS: z.coerce.number().int().min(0).max(3600).default(5),
  /**
   * off: the embedded read models remember no rows and no answers between requests, nor the
   * PostgreSQL ones whole answers, so every request is answered cold (the bench's cold rows; a
   * check that nothing depends on the memos).
   */
  READ_MEMO: z.enum(['on', 'off']).default('on'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends Error {
  constructor(
    readonly variables: string[],
    message: string,
  ) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Parses the environment; a bad value throws a ConfigError naming each variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // A variable set to the empty string is unset: what `${VAR:-}` in docker-compose.yml passes on
  // for a variable the operator left out, so compose can forward every variable with no default
  // of its own to keep in step with this schema's.
  const given = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const parsed = configSchema.safeParse(given);
  if (!parsed.success) {
    const variables = [...new Set(parsed.error.issues.map((i) => String(i.path[0])))];
    const lines = parsed.error.issues.map((i) => `${String(i.path[0])}: ${i.message}`);
    throw new ConfigError(variables, `invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const config = parsed.data;
  assertOneBackend(config);
  if (config.AUTH_JWKS_URL) {
    // An identity provider issues tokens for many clients: without both checks any of them works here.
    const missing = (['AUTH_JWT_AUDIENCE', 'AUTH_JWT_ISSUER'] as const).filter((k) => !config[k]);
    if (missing.length > 0) {
      throw new ConfigError(
        [...missing],
        `AUTH_JWKS_URL needs ${missing.join(' and ')} so tokens issued for other clients are refused`,
      );
    }
  }
  if (config.NODE_ENV === 'production') assertProductionSecrets(config);
  return config;
}

/**
 * POSTGRES_URL is a backend of its own (the log and the read models in PostgreSQL): beside
 * EVENTSTORE_URL or MONGODB_URL it would leave half of the service's state in another store, so
 * the combination is refused rather than one of them silently ignored.
 */
function assertOneBackend(config: Config): void {
  if (!config.POSTGRES_URL) return;
  const others = (['EVENTSTORE_URL', 'MONGODB_URL'] as const).filter((k) => config[k] !== undefined);
  if (others.length === 0) return;
  throw new ConfigError(
    ['POSTGRES_URL', ...others],
    `POSTGRES_URL selects the PostgreSQL backend, which cannot be combined with ${others.join(' or ')}: ` +
      `set POSTGRES_URL alone, or ${others.join(' and ')} without it`,
  );
}

/** Production refuses generated dev secrets, placeholders copied from examples, and guessable values. */
function assertProductionSecrets(config: Config): void {
  const missing: string[] = [];
  if (!config.DIRECTORY_SYNC_TOKEN) missing.push('DIRECTORY_SYNC_TOKEN');
  if (!config.AUTH_JWT_SECRET && !config.AUTH_JWKS_URL) missing.push('AUTH_JWT_SECRET');
  if (missing.length > 0) {
    throw new ConfigError(
      missing,
      `NODE_ENV=production refuses generated dev secrets; set ${missing.join(', ')} (or AUTH_JWKS_URL)`,
    );
  }
  const weak = [
    ...(['AUTH_JWT_SECRET', 'DIRECTORY_SYNC_TOKEN', 'METRICS_TOKEN'] as const).map((variable) => ({
      variable,
      value: config[variable],
    })),
    ...config.OPERATOR_TOKENS.map(({ token }) => ({ variable: 'OPERATOR_TOKENS' as const, value: token })),
  ].flatMap(({ variable, value }) => {
    const weakness = value === undefined ? undefined : secretWeakness(value);
    return weakness ? [{ variable, weakness }] : [];
  });
  if (weak.length > 0) {
    const lines = weak.map(
      (w) => `${w.variable}: ${w.weakness === 'placeholder' ? 'a placeholder value' : 'too predictable'}`,
    );
    throw new ConfigError(
      weak.map((w) => w.variable),
      `NODE_ENV=production refuses weak secrets (generate one with \`openssl rand -base64 48\`):\n  ${lines.join('\n  ')}`,
    );
  }
}
