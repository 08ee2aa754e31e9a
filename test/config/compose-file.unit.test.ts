import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
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
};
const services = (parse(compose, { merge: true }) as { services: Record<string, Service> }).services;

describe('docker-compose.yml', () => {
  it.each(['AUTH_JWT_SECRET', 'DIRECTORY_SYNC_TOKEN'])(
    'given %s, then compose requires it instead of defaulting it',
    (variable) => {
      const line = compose.split('\n').find((l) => l.trim().startsWith(`${variable}:`));
      expect(line).toContain(`\${${variable}:?`);
      expect(line).not.toMatch(/:-/);
    },
  );

  it('given the stores without authentication, then their ports are published on loopback only', () => {
    const published = [...compose.matchAll(/ports: \[([^\]]*)\]/g)].flatMap((m) =>
      m[1]!.split(',').map((p) => p.trim().replace(/"/g, '')),
    );
    const stores = published.filter((p) => /:(2113|27017|6379)$/.test(p));
    expect(stores).toHaveLength(3);
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
