/**
 * GetResourceList must be one indexed query on the visibility read model, whatever the number of
 * resources: counted here through the read-store port, and checked against the index the
 * projection declares (its keys must lead with the filter's equality fields).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { directoryBatchSchema } from '../../src/domain/directory/directory-events';
import { systemActor } from '../../src/domain/event';
import { ingestDirectoryEvents } from '../../src/commands/ingest-directory-events';
import { saveProjectResource } from '../../src/commands/save-project-resource';
import { SqliteEventStore } from '../../src/infra/event-store/sqlite-event-store';
import { createLogger } from '../../src/infra/logger';
import { MemoryReadStore } from '../../src/infra/read-store/memory-read-store';
import { allProjections } from '../../src/projections/all-projections';
import { DirectoryReader } from '../../src/projections/directory/directory-reader';
import { ProjectionRunner } from '../../src/projections/projection-runner';
import { RES } from '../../src/projections/resources/resource-collections';
import { resourceProjection } from '../../src/projections/resources/resource-projection';
import { listResources } from '../../src/projections/resources/resource-queries';
import type { QueryLog } from '../support/counting-read-store';
import { countingReadStore } from '../support/counting-read-store';
import { demo, demoDirectory } from '../support/demo-directory';

async function serviceWith(resources: number) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prs-query-'));
  const eventStore = SqliteEventStore.open(path.join(dir, 'events.sqlite'));
  const log: QueryLog = [];
  const readStore = countingReadStore(new MemoryReadStore(), log);
  const runner = new ProjectionRunner(eventStore, readStore, allProjections, createLogger('silent'));
  await runner.start();
  const metadata = { actor: systemActor, correlationId: 'test', at: new Date().toISOString() };
  await runner.waitFor(await ingestDirectoryEvents(eventStore, directoryBatchSchema.parse(demoDirectory), metadata), 10_000);
  const directory = new DirectoryReader(readStore);
  const caller = { userId: demo.users.team, name: 'Ada', status: 'active' as const, platformRoles: [], actor: { userId: demo.users.team, credential: 'session' as const } };
  let last: bigint | undefined;
  for (let i = 0; i < resources; i++) {
    const result = await saveProjectResource({ eventStore, directory, clock: () => new Date() }, { caller, correlationId: 'c' }, {
      id: 0,
      name: `Resource ${i}`,
      description: '',
      resourceUrl: `https://example.org/${i}.pdf`,
      privacyLevel: 1 + (i % 3),
      icon: '',
      resourceTags: [],
      communityProjectId: demo.communityProjects.solarIn1,
    });
    last = result.position;
  }
  if (last !== undefined) await runner.waitFor(last, 10_000);
  return { log, readStore, directory, close: async () => (await runner.stop(), await eventStore.close()) };
}

describe('GetResourceList query shape', () => {
  it.each([10, 300])('given %i resources, when a member lists them, then exactly one query reads the view model', async (n) => {
    const service = await serviceWith(n);
    try {
      const viewer = await service.directory.viewer(demo.users.member1);
      service.log.length = 0;
      const answer = await listResources(service.readStore, service.directory, viewer, {
        projectId: demo.projects.solar,
        communityId: demo.communities.public1,
        paragraphId: null,
        concept: null,
        tags: [],
        orderBy: 1,
        page: { skip: 0, take: 20 },
      });
      expect(answer.resources.count).toBeGreaterThan(0);
      const onViews = service.log.filter((q) => q.collection === RES.views);
      expect(onViews).toHaveLength(1);
      expect(onViews[0]?.method).toBe('findPage');

      // The filter's equality fields are the leading keys of a declared index.
      const filterKeys = Object.keys(onViews[0]?.filter ?? {});
      const index = resourceProjection.indexes.find((i) => i.name === 'list_recent');
      expect(Object.keys(index?.keys ?? {}).slice(0, 3)).toEqual(['viewKey', 'projectId', 'audience']);
      expect(filterKeys.slice(0, 3)).toEqual(['viewKey', 'projectId', 'audience']);
    } finally {
      await service.close();
    }
  });
});
