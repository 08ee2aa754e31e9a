import { randomUUID } from 'node:crypto';
import { systemActor } from '../domain/event';
import type { EventStore } from '../ports/event-store';
import type { PersonalDataKeys } from '../ports/personal-data-keys';
import { personalDataStreamId } from '../audit/personal-data-events';

export const ERASE_PERSON_HELP =
  'usage: npm run cli -- erase-person <userId>\n' +
  "  destroy the person's key: the personal fields events carry for them (client addresses) read as\n" +
  '  erased from then on, everywhere; the log, its hash chain and the read models stay; recorded as\n' +
  '  PersonalDataErased in the stream personal-data-<userId>\n';

type Opened = { readonly events: () => EventStore; readonly keys: () => Promise<PersonalDataKeys> };

/**
 * `resources-cli erase-person <userId>`: the key destroyed first, then the erasure recorded. A
 * failure between the two leaves the data erased and the record missing; running it again records
 * it (keyDestroyed false then), never the other way round (a record of an erasure that did not happen).
 */
export async function erasePersonCommand(args: readonly string[], open: Opened): Promise<number> {
  const [id, ...extra] = args;
  const userId = Number(id);
  if (id === undefined || extra.length > 0 || !/^\d+$/.test(id) || !Number.isSafeInteger(userId)) {
    process.stderr.write(ERASE_PERSON_HELP);
    return 2;
  }
  const keys = await open.keys();
  const events = open.events();
  try {
    const keyDestroyed = await keys.destroy(userId);
    await events.appendToStream(
      personalDataStreamId(userId),
      [
        {
          type: 'PersonalDataErased',
          data: { userId, keyDestroyed },
          metadata: {
            actor: systemActor,
            correlationId: `cli-erase-person-${randomUUID()}`,
            at: new Date().toISOString(),
          },
        },
      ],
      'any',
    );
    process.stdout.write(`${JSON.stringify({ userId, keyDestroyed })}\n`);
    return 0;
  } finally {
    await Promise.allSettled([keys.close(), events.close()]);
  }
}
