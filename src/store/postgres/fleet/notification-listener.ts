import pg from "pg";

/** What the listener is told: a notification, or that some may have been missed. */
export interface ListenerEvents {
  notification(channel: string, payload: string): void;
  /** The connection dropped and is back: notifications sent meanwhile were lost. */
  lost(): void;
  /** The connection dropped (told once per outage, for the log). */
  down(error: Error): void;
}

/** How long to wait before connecting again, growing to this bound while the server stays away. */
const RECONNECT_MIN_MS = 100;
const RECONNECT_MAX_MS = 2_000;

/**
 * One dedicated connection LISTENing on the fleet's channels (a pooled
 * connection would lose its LISTEN when given back). It reconnects by
 * itself when the server restarts or the network drops, and says `lost`
 * once it is back: NOTIFY is not queued for an absent listener, so every
 * reader must then catch up from the log.
 */
export class NotificationListener {
  private client: pg.Client | undefined;
  private stopped = false;
  private retryMs = RECONNECT_MIN_MS;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly channels: readonly string[],
    private readonly events: ListenerEvents,
  ) {}

  /** Connects and listens; rejects when the first connection fails (the hub then does not start). */
  async start(): Promise<void> {
    await this.connect();
  }

  private async connect(): Promise<void> {
    const client = new pg.Client(this.config);
    client.on("notification", (n) => {
      if (n.payload !== undefined) this.events.notification(n.channel, n.payload);
    });
    // Without a listener an error on an idle connection would end the process.
    client.on("error", (e) => this.dropped(client, e));
    client.on("end", () => this.dropped(client, new Error("the listening connection ended")));
    await client.connect();
    try {
      for (const channel of this.channels) await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    } catch (e) {
      await client.end().catch(() => undefined);
      throw e;
    }
    if (this.stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.retryMs = RECONNECT_MIN_MS;
  }

  private dropped(client: pg.Client, error: Error): void {
    if (this.client !== client || this.stopped) return;
    this.client = undefined;
    client.end().catch(() => undefined);
    this.events.down(error);
    this.reconnectSoon();
  }

  private reconnectSoon(): void {
    if (this.stopped || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.connect().then(
        () => {
          if (!this.stopped) this.events.lost();
        },
        () => {
          this.retryMs = Math.min(this.retryMs * 2, RECONNECT_MAX_MS);
          this.reconnectSoon();
        },
      );
    }, this.retryMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }
}
