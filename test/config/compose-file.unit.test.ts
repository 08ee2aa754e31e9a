import fs from 'node:fs';
import path from 'node:path';

const root = path.join(__dirname, '..', '..');
const compose = fs.readFileSync(path.join(root, 'docker-compose.yml'), 'utf8');

describe('docker-compose.yml', () => {
  it.each(['AUTH_JWT_SECRET', 'DIRECTORY_SYNC_TOKEN'])('given %s, then compose requires it instead of defaulting it', (variable) => {
    const line = compose.split('\n').find((l) => l.trim().startsWith(`${variable}:`));
    expect(line).toContain(`\${${variable}:?`);
    expect(line).not.toMatch(/:-/);
  });

  it('given the stores without authentication, then their ports are published on loopback only', () => {
    const published = [...compose.matchAll(/ports: \[([^\]]*)\]/g)].flatMap((m) => m[1]!.split(',').map((p) => p.trim().replace(/"/g, '')));
    const stores = published.filter((p) => /:(2113|27017|6379)$/.test(p));
    expect(stores).toHaveLength(3);
    for (const port of stores) expect(port.startsWith('127.0.0.1:')).toBe(true);
  });

  it('given .env.example, then it names both secrets with no value', () => {
    const example = fs.readFileSync(path.join(root, '.env.example'), 'utf8');
    expect(example).toMatch(/^AUTH_JWT_SECRET=$/m);
    expect(example).toMatch(/^DIRECTORY_SYNC_TOKEN=$/m);
  });
});
