import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { EventMetadata } from '../domain/event';
import type { RecordedEvent } from '../ports/event-store';
import type { PersonalDataKeys } from '../ports/personal-data-keys';

/**
 * Personal fields of events sealed under their person's key (src/ports/personal-data-keys.ts):
 * `sealed:v1:<userId>:<base64url of iv, tag and ciphertext>`, AES-256-GCM, the field's name and
 * the person bound in as associated data (a sealed value moved to another field or person does
 * not open). What reads an event opens them; once the person's key is destroyed they read ERASED.
 */
const PREFIX = 'sealed:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** What a personal field reads as once its person's key is destroyed. */
export const ERASED = 'erased';

/** The metadata fields that are personal data: whose they are is the event's actor. */
export const PERSONAL_METADATA_FIELDS = ['clientAddress'] as const;
type PersonalField = (typeof PERSONAL_METADATA_FIELDS)[number];

const associated = (field: PersonalField, userId: number) => Buffer.from(`${field}:${userId}`);

export function seal(value: string, field: PersonalField, userId: number, key: Buffer): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(associated(field, userId));
  const sealed = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
  return `${PREFIX}${userId}:${Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url')}`;
}

/** The person a sealed value belongs to, or undefined for a value stored in the clear (older events). */
export function sealedFor(value: string): number | undefined {
  if (!value.startsWith(PREFIX)) return undefined;
  const userId = Number(value.slice(PREFIX.length, value.indexOf(':', PREFIX.length)));
  return Number.isSafeInteger(userId) ? userId : undefined;
}

/** The value, or ERASED when the key is gone or does not open it. */
export function open(value: string, field: PersonalField, key: Buffer | undefined): string {
  const userId = sealedFor(value);
  if (userId === undefined) return value;
  if (!key) return ERASED;
  try {
    const bytes = Buffer.from(value.slice(value.indexOf(':', PREFIX.length) + 1), 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
    decipher.setAAD(associated(field, userId));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    return ERASED;
  }
}

/** The events with their personal fields opened (or ERASED), the keys fetched once for all of them. */
export async function openPersonalData(
  events: readonly RecordedEvent[],
  keys: PersonalDataKeys,
): Promise<RecordedEvent[]> {
  const people = new Set<number>();
  for (const event of events)
    for (const field of PERSONAL_METADATA_FIELDS) {
      const value = (event.metadata as Partial<Record<PersonalField, string>>)[field];
      const person = value === undefined ? undefined : sealedFor(value);
      if (person !== undefined) people.add(person);
    }
  if (people.size === 0) return [...events];
  const found = await keys.keysOf([...people]);
  return events.map((event) => {
    const metadata: Record<string, unknown> = { ...event.metadata };
    for (const field of PERSONAL_METADATA_FIELDS) {
      const value = metadata[field];
      if (typeof value !== 'string') continue;
      const person = sealedFor(value);
      if (person !== undefined) metadata[field] = open(value, field, found.get(person));
    }
    return { ...event, metadata: metadata as EventMetadata };
  });
}

/** The metadata with its personal fields sealed under the actor's key, as it is stored. */
export async function sealPersonalData(metadata: EventMetadata, keys: PersonalDataKeys): Promise<EventMetadata> {
  const userId = metadata.actor.userId;
  let sealed: Record<string, unknown> | undefined;
  for (const field of PERSONAL_METADATA_FIELDS) {
    const value = metadata[field];
    if (value === undefined || sealedFor(value) !== undefined) continue;
    sealed ??= { ...metadata };
    sealed[field] = seal(value, field, userId, await keys.keyFor(userId));
  }
  return (sealed as EventMetadata | undefined) ?? metadata;
}
