/**
 * A rebuild holds the generations' rebuild lock from start to switch: one that lost it meanwhile
 * (stalled past its TTL, another rebuild took it) builds but never moves the pointer, and a second
 * rebuild asked while one holds it is refused at once. With the embedded store and its generations,
 * the lock handed in as a stub whose state the test sets.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ReadSide } from '../../src/app/read-side';
import { loadConfig } from '../../src/config/config';
import { DomainError } from '../../src/domain/errors';
import { readGenerations, type ReadGenerations, type RebuildLock } from '../../src/infra/read-generations';
import { SqliteEventStore } from '../../src/infra/sqlite/sqlite-event-store';
import { createLogger } from '../../src/observability/logger';

async function sideWith(lock: () => RebuildLock | null) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'prs-rebuild-lock-'));
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', PORT: '0', DATA_DIR: dataDir });
  const events = SqliteEventStore.open(path.join(dataDir, 'events.sqlite'));
  const generations: ReadGenerations = { ...readGenerations(config), lockRebuild: async () => lock() };
  const side = await ReadSide.open({
    config,
    events,
    logger: createLogger('silent'),
    generations,
    runners: () => ({ role: 'project' }),
  });
  return {
    side,
    generations,
    close: async () => {
      await side.close();
      await events.close();
    },
  };
}

describe('the rebuild lock', () => {
  it('given the lock lost while the rebuild ran, then the rebuild is refused as a conflict and the pointer stays', async () => {
    const released = jest.fn(async () => undefined);
    const { side, generations, close } = await sideWith(() => ({ held: false, release: released }));
    try {
      await expect(side.rebuild({ switchHere: true })).rejects.toMatchObject({ kind: 'conflict' });
      expect(await generations.current()).toBe(0);
      expect(side.current.number).toBe(0);
      expect(released).toHaveBeenCalled();
    } finally {
      await close();
    }
  });

  it('given another rebuild holds the lock, then the rebuild is refused at once as a conflict', async () => {
    const { side, generations, close } = await sideWith(() => null);
    try {
      const refused = side.rebuild({ switchHere: true });
      await expect(refused).rejects.toBeInstanceOf(DomainError);
      await expect(refused).rejects.toMatchObject({ kind: 'conflict' });
      expect(await generations.current()).toBe(0);
    } finally {
      await close();
    }
  });

  it('given the lock held throughout, then the rebuild switches and releases it', async () => {
    const released = jest.fn(async () => undefined);
    const { side, generations, close } = await sideWith(() => ({ held: true, release: released }));
    try {
      await side.rebuild({ switchHere: true });
      expect(await generations.current()).toBe(1);
      expect(released).toHaveBeenCalled();
    } finally {
      await close();
    }
  });
});
