import pg from 'pg';

/** How long a lost LISTEN connection waits before connecting again (the poll covers the gap). */
const reconnectMs = 1000;

/**
 * The wake-up of a PostgreSQL log's followers: one connection per store LISTENs on the log's
 * channel, and every append notifies it in its own transaction (pg_notify), which PostgreSQL
 * delivers only once that transaction has committed, and in commit order. A notification carries
 * no event, only the log's head after the commit (a position up to which every event is
 * committed): it says "read again", so one lost or merged does no harm beyond latency; the
 * followers' poll is the fallback. While the connection is down (a restart of the server, a
 * network cut) it is made again after a second, and the followers are woken at each change, since
 * notifications sent meanwhile are lost.
 */
export class LogNotifications {
  private client: pg.Client | undefined;
  private retry: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly channel: string,
    /** `head`: the position a notification named; absent where the connection was lost or made again. */
    private readonly wake: (head?: bigint) => void,
  ) {}

  start(): void {
    void this.listen();
  }

  private async listen(): Promise<void> {
    if (this.stopped) return;
    const client = new pg.Client(this.config);
    let lost = false;
    const onLost = () => {
      if (lost) return;
      lost = true;
      if (this.client === client) this.client = undefined;
      client.end().catch(() => undefined);
      this.wake();
      if (!this.stopped && !this.retry) {
        this.retry = setTimeout(() => {
          this.retry = undefined;
          void this.listen();
        }, reconnectMs);
        this.retry.unref();
      }
    };
    client.on('notification', (message) => this.wake(headOf(message.payload)));
    client.on('error', onLost);
    client.on('end', onLost);
    try {
      await client.connect();
      await client.query(`listen "${this.channel}"`);
    } catch {
      onLost();
      return;
    }
    if (this.stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    // What was appended before the LISTEN took effect was never announced.
    this.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    this.retry = undefined;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }
}

/** The head a notification's payload names, or undefined where it names none (an older writer's). */
function headOf(payload: string | undefined): bigint | undefined {
  return payload !== undefined && /^\d{1,19}$/.test(payload) ? BigInt(payload) : undefined;
}
