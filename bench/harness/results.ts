import type { ClientStack } from "./client-stacks.js";
import type { GcTally } from "./gc-trace.js";
import type { Spread } from "./stats.js";

/** Whether a measure produced figures, and if not, why. */
export type MeasureStatus = "ok" | "not served yet" | "failed";

/** One server and binding at one number of concurrent connections. */
export interface UnaryCell {
  readonly connections: number;
  readonly rps: Spread;
  readonly p50Ms: Spread;
  readonly p99Ms: Spread;
  /** Transport errors, timeouts, non-2xx and wrong bodies, warm-up included. Must be 0. */
  readonly errors: number;
  /** Share of one core the server used during the timed runs (1.0 = saturated). */
  readonly serverCpu: Spread;
  readonly loaderCpu: Spread;
  /** Cores busy with other processes during the timed runs: noise from a shared host. */
  readonly otherCpu: Spread;
  /** Each timed run in order, for comparisons paired run by run (the telemetry section interleaves its servers). */
  readonly perRun?: readonly UnaryRun[];
}

/** One timed run's figures. */
export interface UnaryRun {
  readonly rps: number;
  /** Share of one core the server used. */
  readonly serverCpu: number;
  /** The baseline server's figures at the moment of this run, where a section compares with one (bracketed-rounds.ts). */
  readonly baseline?: { readonly rps: number; readonly serverCpu: number };
}

/** One server and binding of the unary table. */
export interface UnaryRow {
  readonly id: string;
  readonly group: "baseline" | "a2a-hub";
  readonly server: string;
  readonly binding: string;
  /** autocannon, the bench's own h2 loader, or a client stack (harness/client-stacks.ts). */
  readonly loader: "autocannon" | "h2" | ClientStack;
  status: MeasureStatus;
  note?: string;
  readonly cells: UnaryCell[];
  rssAfterBytes?: number;
  /** How the answers were checked beyond status codes. */
  verification?: string;
  /** A check beyond the loader's own counts failed (see note): the row's figures are suspect. */
  checkFailed?: boolean;
}

/** One streaming binding: events/s of one long stream and time to first event. */
export interface StreamRow {
  readonly id: string;
  readonly binding: string;
  status: MeasureStatus;
  note?: string;
  eventsPerSec?: Spread;
  /** Time to first event of the long streams (one per run). */
  firstEventLongMs?: Spread;
  /** Time to first event over many short streams, one after another. */
  firstEventP50Ms?: number;
  firstEventP99Ms?: number;
  firstEventSamples?: number;
  eventsPerStream?: number;
  /** The reading client's CPU share of one core during the long streams. */
  clientCpu?: Spread;
  errors?: number;
}

/** The fan-out measure: many idle subscribers, then one status change to all. */
export interface FanoutResult {
  status: MeasureStatus;
  note?: string;
  subscribers?: number;
  sessions?: number;
  rssIdleBeforeBytes?: number;
  rssWithSubscribersBytes?: Spread;
  subscribeSec?: Spread;
  deliverAllMs?: Spread;
  deliverFirstMs?: Spread;
  deliverP50Ms?: Spread;
  errors?: number;
}

/** One ListTasks/GetTask case at store scale. */
export interface StoreCase {
  readonly label: string;
  readonly p50Ms: Spread;
  readonly p99Ms: Spread;
  /** Position of the page's first task in the listing (0 = newest). */
  readonly position?: number;
}

export interface StoreResult {
  status: MeasureStatus;
  note?: string;
  tasks?: number;
  /** Tasks in the context the filtered cases list. */
  contextTasks?: number;
  seedSec?: number;
  dbBytes?: number;
  cases: StoreCase[];
  rssAfterBytes?: number;
  errors?: number;
}

/** One setup of the PostgreSQL section: hubs on a store, loaded at 32 connections. */
export interface PostgresRow {
  readonly id: string;
  readonly label: string;
  status: MeasureStatus;
  note?: string;
  replicas: number;
  rps?: Spread;
  p50Ms?: Spread;
  p99Ms?: Spread;
  errors?: number;
  /** CPU the hub processes (all replicas together) spent per answered call. */
  hubCpuUsPerCall?: Spread;
  /** CPU the database server processes spent per answered call. */
  dbCpuUsPerCall?: Spread;
  /** Cores busy: the hubs together, the database. */
  hubCores?: Spread;
  dbCores?: Spread;
  served?: number;
  stored?: number;
}

export interface PostgresResult {
  status: MeasureStatus;
  note?: string;
  rows: PostgresRow[];
}

/** Self time of one function in a CPU profile. */
export interface ProfileFrame {
  readonly selfPct: number;
  readonly selfMs: number;
  readonly fn: string;
  readonly where: string;
}

export interface ProfileResult {
  status: MeasureStatus;
  note?: string;
  load?: string;
  file?: string;
  frames?: ProfileFrame[];
  /** Self time grouped by package or source folder. */
  byArea?: Array<{ area: string; selfPct: number }>;
  busyMs?: number;
  idleMs?: number;
  /** The collector during the timed load (--trace-gc), and the calls answered then. */
  gc?: GcTally & { calls: number };
}

/** Everything one bench run measured. */
export interface BenchResults {
  unary: UnaryRow[];
  /** The ratio targets' rows measured side by side (ids versus-<unary id>; head-to-head.ts). */
  headToHead?: UnaryRow[];
  /** p50/p99 per binding at 1, 8, 32 and 128 calls in flight (measures/latency-budget.ts). */
  latency?: UnaryRow[];
  /** Unary rows of the hub with telemetry off and each part of it on (ids telemetry-<binding>-<variant>). */
  telemetry?: UnaryRow[];
  streams: StreamRow[];
  fanout?: FanoutResult;
  store?: StoreResult;
  /** The store section's cases on a seeded PostgreSQL database (measures/store-scale-postgres.ts). */
  storePostgres?: StoreResult;
  postgres?: PostgresResult;
  profile?: ProfileResult;
}
