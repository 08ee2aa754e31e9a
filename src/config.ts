import { z } from 'zod';
import {
  connectionStringProblem,
  eventStoreConnectionString,
  mongodbConnectionString,
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
const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

export const configSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  DATA_DIR: z.string().min(1).default('./data'),
  EVENTSTORE_URL: optionalConnectionString(eventStoreConnectionString),
  MONGODB_URL: optionalConnectionString(mongodbConnectionString),
  REDIS_URL: optionalConnectionString(redisConnectionString),
  AUTH_JWT_SECRET: optionalSecret,
  AUTH_JWKS_URL: optionalUrl,
  DIRECTORY_SYNC_TOKEN: optionalSecret,
  API_KEY_CAP: positiveInt(10),
  RATE_LIMIT_PER_HOUR: positiveInt(1000),
  UPLOAD_MAX_MB: positiveInt(3),
  UPLOAD_BIG_MAX_MB: positiveInt(100),
  /** How long a command waits for its events to reach the read models before answering 503. */
  PROJECTION_WAIT_MS: positiveInt(5000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends Error {
  constructor(readonly variables: string[], message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Parses the environment; a bad value throws a ConfigError naming each variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const variables = [...new Set(parsed.error.issues.map((i) => String(i.path[0])))];
    const lines = parsed.error.issues.map((i) => `${String(i.path[0])}: ${i.message}`);
    throw new ConfigError(variables, `invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const config = parsed.data;
  if (config.NODE_ENV === 'production') {
    const missing = (['DIRECTORY_SYNC_TOKEN'] as const).filter((k) => !config[k]);
    if (!config.AUTH_JWT_SECRET && !config.AUTH_JWKS_URL) missing.push('AUTH_JWT_SECRET' as never);
    if (missing.length > 0) {
      throw new ConfigError(
        missing,
        `NODE_ENV=production refuses generated dev secrets; set ${missing.join(', ')} (or AUTH_JWKS_URL)`,
      );
    }
  }
  return config;
}
