import type { RecordedEvent } from '../../src/ports/event-store';
import { demo } from './demo-directory';
import type { TestServer } from './test-server';

/**
 * Makes the served directory projection fail on the users named in the set answered (its `apply`
 * replaced on the runner, as a bug would): what parks an event, for the parked-event tests.
 */
export function poisonDirectory(server: TestServer): Set<string> {
  const poisoned = new Set<string>();
  const projection = server.services.readSide.current.runners.directory.projection;
  const apply = projection.apply.bind(projection);
  projection.apply = async (event: RecordedEvent) => {
    const { name } = event.data as { name?: unknown };
    if (typeof name === 'string' && poisoned.has(name)) throw new Error(`the directory cannot fold ${name}`);
    await apply(event);
  };
  return poisoned;
}

/** The operators' decisions on the event parked at `position`, as an auditor reads them. */
export async function decisionsOn(
  server: TestServer,
  position: bigint,
): Promise<{ type: string; data: Record<string, unknown> }[]> {
  const page = await server.get('/api/audit/events?stream=operator-decisions', {
    token: await server.sessionToken(demo.users.auditor),
  });
  expect(page.status).toBe(200);
  return (page.body.items as { type: string; data: Record<string, unknown> }[])
    .filter((e) => e.data.position === position.toString())
    .map((e) => ({ type: e.type, data: e.data }));
}
