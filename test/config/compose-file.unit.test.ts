import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { configSchema, loadConfig } from '../../src/config/config';
import { EVENTSTORE_IMAGE, MONGO_IMAGE, REDIS_IMAGE } from '../support/images';

const root = path.join(__dirname, '..', '..');
const compose = fs.readFileSync(path.join(root, 'docker-compose.yml'), 'utf8');

type Service = {
  image?: string;
  restart?: string;
  command?: string[];
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
  environment?: Record<string, string>;
  volumes?: string[];
};
const services = (parse(compose, { merge: true }) as { services: Record<string, Service> }).services;

describe('docker-compose.yml', () => {
  it('given DIRECTORY_SYNC_TOKEN, then compose requires it instead of defaulting it', () => {
    const line = compose.split('\n').find((l) => l.trim().startsWith('DIRECTORY_SYNC_TOKEN:'));
    expect(line).toContain('${DIRECTORY_SYNC_TOKEN:?');
  });

  it('given AUTH_JWT_SECRET, then compose passes it on without a value of its own: an identity provider may replace it', () => {
    const line = compose.split('\n').find((l) => l.trim().startsWith('AUTH_JWT_SECRET:'));
    expect(line?.trim()).toBe('AUTH_JWT_SECRET: "${AUTH_JWT_SECRET:-}"');
  });

  it('given every variable of the configuration, then compose passes each to the API and the projector, or sets it itself', () => {
    // What compose fixes for the stack it runs; everything else comes from .env or the shell.
    const setByCompose: Record<string, string> = {
      NODE_ENV: 'production',
      PORT: '3000',
      EVENTSTORE_URL: 'esdb://eventstore:2113?tls=false',
      MONGODB_URL: 'mongodb://mongodb:27017/project_resources?replicaSet=rs0',
      REDIS_URL: 'redis://redis:6379',
    };
    // Not for this stack: the image sets DATA_DIR; PostgreSQL cannot be combined with EventStoreDB and MongoDB.
    const notForThisStack = ['DATA_DIR', 'POSTGRES_URL'];
    const variables = Object.keys(configSchema.shape).filter((v) => !notForThisStack.includes(v));
    expect(variables.length).toBeGreaterThan(25);

    for (const name of ['api', 'projector']) {
      const environment = services[name]!.environment!;
      for (const variable of variables) {
        const expected = variable === 'ROLE' ? name : (setByCompose[variable] ?? `\${${variable}:`);
        expect([name, variable, environment[variable]]).toEqual([name, variable, expect.stringContaining(expected)]);
      }
    }
  });

  it('given the variables compose passes on empty, then the service loads them as unset', () => {
    const empty = Object.fromEntries(Object.keys(configSchema.shape).map((v) => [v, '']));

    const config = loadConfig({ ...empty, DATA_DIR: '/tmp/prs-compose' });

    expect(config).toMatchObject({ RATE_LIMIT_PER_HOUR: 1000, LOG_LEVEL: 'info', SHUTDOWN_GRACE_SECONDS: 30 });
    expect(config.AUTH_JWT_SECRET).toBeUndefined();
  });

  it('given Redis, then it keeps an append-only file on a volume, so quotas and lockouts survive a restart', () => {
    const redis = services.redis!;
    expect(redis.command).toEqual(['redis-server', '--appendonly', 'yes']);
    expect(redis.volumes).toContainEqual(expect.stringMatching(/^[\w-]+:\/data$/));
  });

  it('given the stores without authentication, then their ports are published on loopback only', () => {
    const published = [...compose.matchAll(/ports: \[([^\]]*)\]/g)].flatMap((m) =>
      m[1]!.split(',').map((p) => p.trim().replace(/"/g, '')),
    );
    const stores = published.filter((p) => /:(2113|27017|6379|5432)$/.test(p));
    expect(stores).toHaveLength(4);
    for (const port of stores) expect(port.startsWith('127.0.0.1:')).toBe(true);
  });

  it('given .env.example, then it names both secrets with no value', () => {
    const example = fs.readFileSync(path.join(root, '.env.example'), 'utf8');
    expect(example).toMatch(/^AUTH_JWT_SECRET=$/m);
    expect(example).toMatch(/^DIRECTORY_SYNC_TOKEN=$/m);
  });

  it('given every store, then its image is a published tag pinned to a patch version, the one the real-server suites start', () => {
    expect(services.eventstore?.image).toBe(EVENTSTORE_IMAGE);
    expect(services.mongodb?.image).toBe(MONGO_IMAGE);
    expect(services.redis?.image).toBe(REDIS_IMAGE);
    for (const image of [EVENTSTORE_IMAGE, MONGO_IMAGE, REDIS_IMAGE]) expect(image).toMatch(/:\d+\.\d+\.\d+/);
  });

  it('given any service, then a restart policy brings it back after a crash', () => {
    for (const [name, service] of Object.entries(services))
      expect([name, service.restart]).toEqual([name, 'unless-stopped']);
  });

  it('given MongoDB, then compose runs a replica set it initiates itself, and the service names the set', () => {
    const mongo = services.mongodb!;
    expect(mongo.command).toEqual(expect.arrayContaining(['--replSet', 'rs0']));
    const check = mongo.healthcheck!.test.join(' ');
    expect(check).toContain('rs.initiate');
    expect(check).toContain('isWritablePrimary');
    for (const name of ['api', 'projector'])
      expect(new URL(services[name]!.environment!.MONGODB_URL!).searchParams.get('replicaSet')).toBe('rs0');
  });

  it('given the two stacks, then each service but the shared Redis belongs to one profile, and .env.example picks the EventStoreDB one', () => {
    const profiles = Object.fromEntries(
      Object.entries(services).map(([name, service]) => [name, (service as { profiles?: string[] }).profiles]),
    );
    expect(profiles).toEqual({
      eventstore: ['eventstore'],
      mongodb: ['eventstore'],
      redis: undefined,
      api: ['eventstore'],
      projector: ['eventstore'],
      postgres: ['postgres'],
      'api-postgres': ['postgres'],
      'projector-postgres': ['postgres'],
    });
    const example = fs.readFileSync(path.join(root, '.env.example'), 'utf8');
    expect(example).toMatch(/^COMPOSE_PROFILES=eventstore$/m);
  });

  it('given the PostgreSQL stack, then its API and projector run on PostgreSQL alone, every other variable passed on as in the other stack', () => {
    for (const name of ['api-postgres', 'projector-postgres']) {
      const service = services[name]!;
      const environment = service.environment!;
      expect(new URL(environment.POSTGRES_URL!.replace(/\$\{[^}]*\}/, 'secret')).host).toBe('postgres:5432');
      expect([environment.EVENTSTORE_URL, environment.MONGODB_URL]).toEqual(['', '']);
      expect(environment.ROLE).toBe(name === 'api-postgres' ? 'api' : 'projector');
      for (const variable of Object.keys(configSchema.shape).filter(
        (v) =>
          ![
            'DATA_DIR',
            'ROLE',
            'PORT',
            'NODE_ENV',
            'EVENTSTORE_URL',
            'MONGODB_URL',
            'POSTGRES_URL',
            'REDIS_URL',
          ].includes(v),
      ))
        expect([name, variable, environment[variable]]).toEqual([name, variable, services.api!.environment![variable]]);
      for (const store of ['postgres', 'redis'])
        expect([store, service.depends_on?.[store]?.condition]).toEqual([store, 'service_healthy']);
    }
    expect(services.postgres?.image).toMatch(/^postgres:17\.\d+-/);
    expect(services.postgres?.healthcheck?.test.join(' ')).toContain('pg_isready');
  });

  it('given the API and the projector, then each starts only once every store answers its health check', () => {
    for (const name of ['api', 'projector']) {
      const waits = services[name]!.depends_on!;
      for (const store of ['eventstore', 'mongodb', 'redis']) {
        expect([store, waits[store]?.condition]).toEqual([store, 'service_healthy']);
        expect(services[store]!.healthcheck).toBeDefined();
      }
    }
  });
});

describe('Dockerfile', () => {
  const dockerfile = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8');
  const lines = dockerfile.split('\n');

  it('given every stage, then it starts from Node 22 pinned to a release, as .nvmrc says', () => {
    const froms = lines.filter((l) => l.startsWith('FROM '));
    const nvmrc = fs.readFileSync(path.join(root, '.nvmrc'), 'utf8').trim();
    expect(froms.length).toBeGreaterThan(0);
    for (const from of froms) expect(from).toMatch(new RegExp(`^FROM node:${nvmrc}\\.\\d+\\.\\d+-`));
  });

  it('given the image, then it runs as a user other than root, with a health check', () => {
    const users = lines.filter((l) => l.startsWith('USER '));
    expect(users.at(-1)).toMatch(/^USER (?!root\b|0\b)\S+/);
    expect(lines.some((l) => l.startsWith('HEALTHCHECK ') && l.includes('/health/ready'))).toBe(true);
  });
});
