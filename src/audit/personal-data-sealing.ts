import { openPersonalData, sealPersonalData } from './personal-data';
import type { EventStore, RecordedEvent } from '../ports/event-store';
import type { PersonalDataKeys } from '../ports/personal-data-keys';

/**
 * The event store with every appended event's personal fields sealed under its person's key
 * (src/audit/personal-data.ts) before they reach the log: the log, its hash chain, its backups
 * and every process reading it hold only the sealed values. Reads are left as stored; the audit
 * opens what it shows.
 */
export function sealingPersonalData<S extends EventStore>(inner: S, keys: PersonalDataKeys): S {
  return {
    ...inner,
    appendToStream: async (streamId, events, expected, options) =>
      inner.appendToStream(
        streamId,
        await Promise.all(
          events.map(async (event) => ({ ...event, metadata: await sealPersonalData(event.metadata, keys) })),
        ),
        expected,
        options,
      ),
  };
}

/**
 * The event store as an export reads it (the CLI's audit): every event read with its personal
 * fields opened, or ERASED where the person's key is gone. The keys are opened on first read and
 * closed with the store.
 */
export function openingPersonalData<S extends EventStore>(inner: S, openKeys: () => Promise<PersonalDataKeys>): S {
  let keys: Promise<PersonalDataKeys> | undefined;
  const keysOnce = () => (keys ??= openKeys());
  const opened = async (events: readonly RecordedEvent[]) => openPersonalData(events, await keysOnce());
  const scanAll = inner.scanAll?.bind(inner);
  return {
    ...inner,
    readStream: async (streamId, range) => opened(await inner.readStream(streamId, range)),
    readLastEvent: async (streamId) => {
      const event = await inner.readLastEvent(streamId);
      return event && (await opened([event]))[0];
    },
    readAll: async (from, maxCount, types) => opened(await inner.readAll(from, maxCount, types)),
    ...(scanAll && {
      scanAll: async (...args: Parameters<typeof scanAll>) => {
        const scanned = await scanAll(...args);
        return { events: await opened(scanned.events), scannedTo: scanned.scannedTo };
      },
    }),
    close: async () => {
      await Promise.allSettled([inner.close(), keys?.then((k) => k.close())]);
    },
  };
}
