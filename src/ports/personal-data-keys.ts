/**
 * One key per person for the personal data events carry (a client's address): the events keep
 * those fields sealed under it, so destroying the key erases them everywhere they are read, while
 * the log itself, its hash chain and every read model stay as they were (crypto-shredding).
 */
export interface PersonalDataKeys {
  /** The person's key (32 bytes), made on first use; every process gets the same one. */
  keyFor(userId: number): Promise<Buffer>;
  /** The keys of these people that exist (a destroyed one is absent). */
  keysOf(userIds: readonly number[]): Promise<ReadonlyMap<number, Buffer>>;
  /** Destroys the person's key for good; true when there was one. */
  destroy(userId: number): Promise<boolean>;
  close(): Promise<void>;
}
