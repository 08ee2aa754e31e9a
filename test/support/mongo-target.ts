import { randomUUID } from 'node:crypto';
import { MongoDBContainer, type StartedMongoDBContainer } from '@testcontainers/mongodb';
import { describeExternal, externalTarget } from './external';
import { MONGO_IMAGE } from './images';

/**
 * A MongoDB suite: against MONGODB_URL, or a throwaway container when Docker answers, or declared
 * as skipped. `body` receives a function giving the connection string and a fresh database name.
 */
export function describeMongo(suite: string, body: (mongo: () => { url: string; dbName: () => string }) => void): void {
  const target = externalTarget('mongodb');
  describeExternal(`${suite} (MongoDB)`, target, () => {
    let url = '';
    let container: StartedMongoDBContainer | undefined;
    beforeAll(async () => {
      if (target.kind === 'url') url = target.url;
      else if (target.kind === 'docker') {
        container = await new MongoDBContainer(MONGO_IMAGE).start();
        url = `${container.getConnectionString()}?directConnection=true`;
      }
    }, 180_000);
    afterAll(async () => {
      await container?.stop();
    });
    body(() => ({ url, dbName: () => `prs_test_${randomUUID().replace(/-/g, '')}` }));
  });
}
