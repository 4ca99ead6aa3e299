import type { TaskStore } from "../store/index.js";
import type { AgentDirectory } from "./agent-directory.js";
import type { Logger } from "./logger.js";
import type { RetryPolicy, SendLedger } from "./send-ledger.js";
import type { TaskEngine } from "./engine/index.js";
import type { TenantCounter } from "./tenant-counter.js";

/**
 * Limits the core enforces; each is configurable (`limits:` in the config
 * file). A request over one is refused with an error that names it.
 */
export interface CoreLimits {
  /** Push configs one task may hold. */
  readonly pushConfigsPerTask: number;
  /** Parts one message may carry. */
  readonly maxParts: number;
  /** UTF-8 bytes of one text part. */
  readonly maxTextPartBytes: number;
  /** JSON bytes of one metadata object (of the request, the message or a part). */
  readonly maxMetadataBytes: number;
  /** Messages kept in a task's history; older ones are dropped (the store enforces it). */
  readonly maxHistoryMessages: number;
  /** Streams (SendStreamingMessage, SubscribeToTask) one tenant may have open at once. */
  readonly maxStreamsPerTenant: number;
  /** Agent runs one tenant may have going at once (tasks submitted or working). */
  readonly maxTasksInFlightPerTenant: number;
  /**
   * Events buffered for a stream's reader. One that falls further behind
   * is fed from the task's event log instead, so it costs no more memory.
   */
  readonly streamBufferEvents: number;
  /**
   * A reader past streamBufferEvents that has read nothing for this long
   * (ms) has stopped reading: its stream is dropped (it may resume with
   * Last-Event-ID).
   */
  readonly streamStallMs: number;
}

/** Defaults of CoreLimits. */
export const DEFAULT_LIMITS: CoreLimits = {
  pushConfigsPerTask: 50,
  maxParts: 100,
  maxTextPartBytes: 4 * 1024 * 1024,
  maxMetadataBytes: 64 * 1024,
  maxHistoryMessages: 1_000,
  maxStreamsPerTenant: 10_000,
  maxTasksInFlightPerTenant: 1_000,
  streamBufferEvents: 10_000,
  streamStallMs: 10_000,
};

/** What every operation is given: nothing global, everything passed in. */
export interface CoreDeps {
  readonly store: TaskStore;
  readonly engine: TaskEngine;
  readonly agents: AgentDirectory;
  readonly logger: Logger;
  readonly limits: CoreLimits;
  /** §3.3.1: the outcome of every keyed send, so a retry is not a second task. */
  readonly sends: SendLedger;
  /** The hub-wide retry policy; an agent's own `retries` overrides it. */
  readonly retries: RetryPolicy;
  /** Open streams per tenant (limits.maxStreamsPerTenant). */
  readonly streams: TenantCounter;
  /** §13.2: why a webhook URL may not be used (resolved and checked), or undefined when it may. */
  readonly pushUrlRefusal?: (url: string) => Promise<string | undefined>;
}
