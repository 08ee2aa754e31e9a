/**
 * Looks at something another process changes (a change feed, the generation pointer), shared by
 * every caller: each caller gets a look that began after it asked, and callers arriving while a
 * look runs share the one queued after it, so however many requests start at once they cost at
 * most two looks. A look that fails rejects the callers it was made for.
 */
export class SharedLooks {
  /** The look being made, and the one queued behind it for whoever asked after it began. */
  private running: Promise<void> | null = null;
  private queued: Promise<void> | null = null;

  constructor(private readonly look: () => Promise<void>) {}

  /** Resolves once a look that began after this call is done. */
  sync(): Promise<void> {
    if (!this.running) {
      const look = this.look().finally(() => {
        this.running = null;
      });
      this.running = look;
      return look;
    }
    this.queued ??= this.running
      .catch(() => undefined)
      .then(() => {
        this.queued = null;
        return this.sync();
      });
    return this.queued;
  }
}
