import { parseArgs } from "node:util";

/** The sections `npm run bench` can run, in the order it runs them. */
export const SECTIONS = ["unary", "versus", "latency", "telemetry", "streaming", "fanout", "store", "store-postgres", "postgres", "profile"] as const;
export type Section = (typeof SECTIONS)[number];

/** Everything one bench run is told: how long, how much, which sections. */
export interface BenchOptions {
  readonly quick: boolean;
  readonly sections: ReadonlySet<Section>;
  /** Timed runs per measure; medians and min/max are taken over them (at least 3, so a median means something). */
  readonly runs: number;
  /** Seconds of one timed load run. */
  readonly durationSec: number;
  /** Seconds of unmeasured load before the timed runs of a measure. */
  readonly warmupSec: number;
  /** Concurrent connections of the unary measures. */
  readonly connections: readonly number[];
  /** Artifact chunks of the one-stream measure (`stream <n>`). */
  readonly streamChunks: number;
  /** Streams opened one after another to sample time to first event. */
  readonly firstEventSamples: number;
  readonly subscribers: number;
  /** Tasks seeded for the store-scale measures (SQLite and PostgreSQL). */
  readonly seedTasks: number;
  /** Requests timed per ListTasks/GetTask case. */
  readonly pageSamples: number;
  /** Seconds of load while the server runs under --cpu-prof. */
  readonly profileSec: number;
  /** Wait for other processes to leave the machine idle before each measure. */
  readonly waitQuiet: boolean;
  /** Where the report goes. */
  readonly out: string;
}

const FULL = {
  runs: 3,
  durationSec: 5,
  warmupSec: 2,
  streamChunks: 10_000,
  firstEventSamples: 200,
  subscribers: 10_000,
  seedTasks: 1_000_000,
  pageSamples: 100,
  profileSec: 10,
  connections: [1, 32],
} as const;

/**
 * --quick: a smoke check under 2 minutes; same measures, smaller and
 * shorter, unary at 32 connections only. autocannon stops on whole seconds,
 * so 1 s is its shortest run.
 */
const QUICK = {
  runs: 3,
  durationSec: 1,
  warmupSec: 0.5,
  streamChunks: 10_000,
  firstEventSamples: 30,
  subscribers: 1_000,
  seedTasks: 20_000,
  pageSamples: 30,
  profileSec: 3,
  connections: [32],
} as const;

function num(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name}: expected a positive number, got ${JSON.stringify(text)}`);
  return n;
}

/**
 * Reads `npm run bench -- [--quick] [--only unary,store] [--runs n]
 * [--duration s] [--warmup s] [--subscribers n] [--seed n] [--profile]
 * [--no-profile] [--[no-]wait-quiet] [--out file]`. The profile section runs in a full run and
 * in a quick one only when asked for.
 */
export function parseBenchOptions(argv: readonly string[]): BenchOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      quick: { type: "boolean" },
      only: { type: "string" },
      runs: { type: "string" },
      duration: { type: "string" },
      warmup: { type: "string" },
      subscribers: { type: "string" },
      seed: { type: "string" },
      profile: { type: "boolean" },
      "no-profile": { type: "boolean" },
      "wait-quiet": { type: "boolean" },
      "no-wait-quiet": { type: "boolean" },
      out: { type: "string" },
    },
    strict: true,
  });
  const quick = values.quick === true;
  const base = quick ? QUICK : FULL;
  let sections = new Set<Section>(SECTIONS);
  if (values.only) {
    const asked = values.only.split(",").map((s) => s.trim());
    for (const s of asked) if (!(SECTIONS as readonly string[]).includes(s)) throw new Error(`--only: unknown section ${s}; known: ${SECTIONS.join(", ")}`);
    sections = new Set(asked as Section[]);
  }
  if (quick && !values.profile && !values.only) sections.delete("profile");
  if (values.profile) sections.add("profile");
  if (values["no-profile"]) sections.delete("profile");
  const runs = Math.round(num("runs", values.runs, base.runs));
  if (runs < 3) throw new Error("--runs: at least 3 runs per measure (a median and a spread need them)");
  return {
    quick,
    sections,
    runs,
    durationSec: num("duration", values.duration, base.durationSec),
    warmupSec: num("warmup", values.warmup, base.warmupSec),
    connections: base.connections,
    streamChunks: base.streamChunks,
    firstEventSamples: base.firstEventSamples,
    subscribers: Math.round(num("subscribers", values.subscribers, base.subscribers)),
    seedTasks: Math.round(num("seed", values.seed, base.seedTasks)),
    pageSamples: base.pageSamples,
    profileSec: base.profileSec,
    // A smoke check has no time to wait for a shared host to go quiet unless asked to.
    waitQuiet: quick ? values["wait-quiet"] === true : values["no-wait-quiet"] !== true,
    out: values.out ?? (quick ? "bench/results-quick.md" : "bench/results.md"),
  };
}
