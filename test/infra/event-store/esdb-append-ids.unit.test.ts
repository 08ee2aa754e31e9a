import { appendEventId, EsdbEventStore } from '../../../src/infra/eventstoredb/esdb-event-store';
import type { NewEvent } from '../../../src/ports/event-store';

/*
 * The ids EsdbEventStore proposes for the events of an append: the same append sent again (its
 * answer lost) proposes the same ids, which EventStoreDB answers as the write it holds; any other
 * append, a competing writer's at the same revision included, proposes others.
 */

const stored = (data: string, metadata = '{"correlationId":"c-1"}') => ({ type: 'ResourceCreated', data, metadata });
const v5 = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('EventStoreDB append event ids', () => {
  it('given the same append, when its ids are derived again, then they are the same UUIDs', () => {
    // given
    const id = appendEventId('resource-1', 3n, 0, stored('{"id":1}'));
    // when
    const again = appendEventId('resource-1', 3n, 0, stored('{"id":1}'));
    // then
    expect(again).toBe(id);
    expect(id).toMatch(v5);
  });

  it.each([
    ['another stream', appendEventId('resource-2', 3n, 0, stored('{"id":1}'))],
    ['another expected revision', appendEventId('resource-1', 4n, 0, stored('{"id":1}'))],
    ['no_stream', appendEventId('resource-1', 'no_stream', 0, stored('{"id":1}'))],
    ['another place in the batch', appendEventId('resource-1', 3n, 1, stored('{"id":1}'))],
    ['other data', appendEventId('resource-1', 3n, 0, stored('{"id":2}'))],
    ['a competing writer (other metadata)', appendEventId('resource-1', 3n, 0, stored('{"id":1}', '{"c":"2"}'))],
  ])('given %s, then the id differs', (_, other) => {
    expect(other).not.toBe(appendEventId('resource-1', 3n, 0, stored('{"id":1}')));
  });

  it('given an append retried after its answer was lost, when sent again, then the server is offered the same ids', async () => {
    // given: a stand-in client that records each append's proposed ids and loses the first answer
    const proposed: string[][] = [];
    const client = {
      appendToStream: jest.fn(async (_stream: string, events: { id: string }[]) => {
        proposed.push(events.map((e) => e.id));
        if (proposed.length === 1) throw new Error('deadline exceeded');
        return { success: true, nextExpectedRevision: 1n, position: { commit: 9n, prepare: 9n } };
      }),
    };
    const Store = EsdbEventStore as unknown as new (client: object) => EsdbEventStore;
    const store = new Store(client);
    const events: NewEvent[] = [1, 2].map((n) => ({
      type: 'Happened',
      data: { n },
      metadata: { actor: { userId: 1, credential: 'session' }, correlationId: 'c', at: '2024-05-01T10:00:00.000Z' },
    }));
    // when
    await store.appendToStream('resource-1', events, 'no_stream').catch(() => undefined);
    await store.appendToStream('resource-1', events, 'no_stream');
    // then
    expect(proposed[1]).toEqual(proposed[0]);
    expect(new Set(proposed[0]).size).toBe(2);
  });
});
