import { create, toJson, type JsonValue } from "@bufbuild/protobuf";
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context } from "@opentelemetry/api";
import { StreamResponseSchema, type StreamResponse } from "../../gen/a2a/v1/a2a_pb.js";
import type { Logger } from "../core/index.js";
import type { PushDelivery, TaskStore } from "../store/index.js";
import { AddressPolicy } from "./address-policy.js";
import { DEFAULT_RETRY, nextAttemptAt, type RetryPolicy } from "./retry-policy.js";
import { postWebhook, type WebhookOutcome } from "./webhook-post.js";

/** No-op until an OTel SDK is registered. */
const tracer = () => trace.getTracer("a2a-hub");

/** Metadata key (and header) carrying the event's sequence number, so receivers can drop duplicates. */
export const SEQ_METADATA_KEY = "a2a-hub/seq";
export const SEQ_HEADER = "x-a2a-hub-event-seq";

/** How the push worker behaves; every figure is configurable. */
export interface PushOptions {
  readonly policy?: AddressPolicy;
  readonly retry?: RetryPolicy;
  /** Time allowed for one POST (ms); default 10 s. */
  readonly timeoutMs?: number;
  /** Deliveries in flight at once, across all (task, config) pairs. */
  readonly concurrency?: number;
  /**
   * Payload encoders for configs created under other A2A versions, by
   * version ("0.3"); the JSON of the event in that version's shape.
   */
  readonly encoders?: Readonly<Record<string, (event: StreamResponse) => unknown>>;
  /** Told of every POST's result (for metrics): sent (2xx), retried, or dead after its last attempt. */
  readonly onDelivery?: (result: "sent" | "retried" | "dead", seconds: number) => void;
  /**
   * The writer's open unit of work (group commit): outbox rows read while it
   * is open may not be committed yet, and a webhook must never hear of an
   * event that could still be rolled back.
   */
  readonly writes?: { readonly isOpen: boolean; durable(): Promise<void> };
}

/** The body a receiver gets: the StreamResponse as ProtoJSON, events tagged with their sequence number. */
function payloadJson(d: PushDelivery, encoders: PushOptions["encoders"]): string {
  let event: StreamResponse = d.payload;
  const p = event.payload;
  if (p.case === "statusUpdate" || p.case === "artifactUpdate") {
    event = create(StreamResponseSchema, event);
    const inner = event.payload.value as { metadata?: Record<string, JsonValue> };
    inner.metadata = { ...(inner.metadata ?? {}), [SEQ_METADATA_KEY]: d.seq };
  }
  const encode = encoders?.[d.version];
  return JSON.stringify(encode ? encode(event) : toJson(StreamResponseSchema, event));
}

function headersFor(d: PushDelivery): Record<string, string> {
  const h: Record<string, string> = {
    "content-type": "application/a2a+json",
    [SEQ_HEADER]: String(d.seq),
    "user-agent": "a2a-hub push",
  };
  // §4.3.2 and §13.2: the receiver's credentials, and the token it gave us to verify the sender.
  const auth = d.config.authentication;
  if (auth?.scheme) h.authorization = auth.credentials ? `${auth.scheme} ${auth.credentials}` : auth.scheme;
  if (d.config.token) h["x-a2a-notification-token"] = d.config.token;
  return h;
}

/**
 * Delivers the durable push outbox (§3.5.3): POSTs each queued event to its
 * webhook in event order per (task, config), retries failures with backoff,
 * marks a delivery dead after the last attempt, and picks up what a crashed
 * process left pending.
 */
/** How soon the worker looks again after the outbox could not be read. */
const OUTBOX_RETRY_MS = 1_000;

export class PushDeliveryWorker {
  private readonly inFlight = new Map<number, Promise<void>>();
  private readonly policy: AddressPolicy;
  private readonly retry: RetryPolicy;
  private readonly timeoutMs: number;
  private readonly concurrency: number;
  private readonly encoders: PushOptions["encoders"];
  private readonly onDelivery: PushOptions["onDelivery"];
  private readonly writes: PushOptions["writes"];
  private timer: NodeJS.Timeout | undefined;
  private scheduled = false;
  private stopped = false;
  /** A pass is reading the outbox (a networked store answers later); a kick meanwhile asks for another. */
  private pumping = false;
  private pumpAgain = false;
  /**
   * The trace context of the commit that last announced deliveries (the
   * store's unit of work, in the trace of the call whose run wrote it):
   * the deliveries a pass starts are its children. Kept by hand because
   * the hub's context does not cross awaits (telemetry/tracing/sync-context.ts).
   */
  private wokenIn: Context = ROOT_CONTEXT;

  constructor(
    private readonly store: TaskStore,
    private readonly logger: Logger,
    options: PushOptions = {},
  ) {
    this.policy = options.policy ?? new AddressPolicy();
    this.retry = options.retry ?? DEFAULT_RETRY;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.concurrency = options.concurrency ?? 16;
    this.encoders = options.encoders;
    this.onDelivery = options.onDelivery;
    this.writes = options.writes;
  }

  start(): void {
    this.store.onOutbox = () => {
      this.wokenIn = context.active();
      this.kick();
    };
    this.kick();
  }

  /** Looks for due deliveries soon (coalesced to one pass per tick). */
  kick(): void {
    if (this.stopped || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    if (this.stopped) return;
    if (this.writes?.isOpen) {
      // Read the outbox once the open unit has committed (or rolled back).
      void this.writes.durable().then(
        () => this.kick(),
        () => this.kick(),
      );
      return;
    }
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    clearTimeout(this.timer);
    this.timer = undefined;
    this.pumping = true;
    this.pass().then(
      () => this.pumped(),
      (e: unknown) => {
        // The store could not be read (a networked store is down): look again later.
        this.logger.warn("could not read the push outbox", { error: String(e) });
        this.pumped(OUTBOX_RETRY_MS);
      },
    );
  }

  private pumped(retryMs?: number): void {
    this.pumping = false;
    if (this.pumpAgain) {
      this.pumpAgain = false;
      this.kick();
    } else if (retryMs !== undefined && !this.stopped && this.timer === undefined) {
      this.timer = setTimeout(() => this.kick(), retryMs);
      this.timer.unref();
    }
  }

  /** One look at the outbox: start what is due, and set a timer for what falls due next. */
  private async pass(): Promise<void> {
    // Deliveries a timer or a retry brings due later start traces of their own.
    const woken = this.wokenIn;
    this.wokenIn = ROOT_CONTEXT;
    const room = this.concurrency - this.inFlight.size;
    if (room > 0) {
      for (const d of await this.store.dueDeliveries(Date.now(), room + this.inFlight.size)) {
        if (this.stopped) return;
        if (this.inFlight.has(d.id) || this.inFlight.size >= this.concurrency) continue;
        const job = this.deliver(d, woken).finally(() => {
          this.inFlight.delete(d.id);
          this.kick();
        });
        this.inFlight.set(d.id, job);
      }
    }
    const next = await this.store.nextDeliveryAt();
    if (next !== undefined && this.inFlight.size < this.concurrency && !this.stopped) {
      // In a fleet a delivery another replica claimed falls to this one when that replica's lease
      // runs out, which no local commit announces: look again at least once a sweep period.
      const poll = this.store.fleet?.sweepEveryMs ?? Number.POSITIVE_INFINITY;
      this.timer = setTimeout(() => this.kick(), Math.max(10, Math.min(next - Date.now(), poll)));
      this.timer.unref();
    }
  }

  /** One delivery inside its span; the receiver gets the span's W3C trace context. */
  private async deliver(d: PushDelivery, parent: Context): Promise<void> {
    const attributes = { "a2a.task_id": d.taskId, "a2a.agent": d.scope.agentId, "a2a.push.seq": d.seq, "a2a.push.attempt": d.attempts + 1 };
    const span = tracer().startSpan("push delivery", { kind: SpanKind.CLIENT, attributes }, parent);
    try {
      const result = await this.attempt(d, trace.setSpan(parent, span));
      span.setAttribute("a2a.push.result", result ?? "left pending");
      if (result !== "sent") span.setStatus({ code: SpanStatusCode.ERROR, message: result ?? "left pending" });
    } finally {
      span.end();
    }
  }

  private async attempt(d: PushDelivery, traceContext: Context): Promise<"sent" | "retried" | "dead" | undefined> {
    let outcome: WebhookOutcome;
    const started = performance.now();
    const headers = headersFor(d);
    propagation.inject(traceContext, headers);
    try {
      outcome = await postWebhook({ url: d.config.url, body: payloadJson(d, this.encoders), headers, timeoutMs: this.timeoutMs }, this.policy);
    } catch (e) {
      outcome = { ok: false, reason: String(e) };
    }
    if (this.stopped && !outcome.ok) return undefined; // left pending: the next process retries it
    const seconds = (performance.now() - started) / 1000;
    try {
      if (outcome.ok) {
        await this.store.deliverySucceeded(d.id);
        this.onDelivery?.("sent", seconds);
        return "sent";
      }
      const attempts = d.attempts + 1;
      const retryAt = nextAttemptAt(this.retry, attempts, Date.now());
      await this.store.deliveryFailed(d.id, retryAt, outcome.reason);
      if (retryAt === undefined) {
        this.logger.warn("push delivery is dead after its last attempt", { taskId: d.taskId, configId: d.config.id, seq: d.seq, attempts, reason: outcome.reason });
      }
      const result = retryAt === undefined ? "dead" : "retried";
      this.onDelivery?.(result, seconds);
      return result;
    } catch (e) {
      // The store closed under us during shutdown: the row stays pending.
      this.logger.warn("could not record a push delivery outcome", { error: String(e) });
      return undefined;
    }
  }

  /** Stops taking deliveries and waits for those in flight (each bounded by the POST timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.store.onOutbox = undefined;
    await Promise.allSettled([...this.inFlight.values()]);
  }
}
