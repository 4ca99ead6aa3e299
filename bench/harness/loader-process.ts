import type { CpuPinning } from "./cpu-pinning.js";
import { Child, nodeTs } from "./child-process.js";
import { quantile } from "./stats.js";

/** One timed run of a unary loader, whichever it is. */
export interface TimedRun {
  requests: number;
  seconds: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** Socket errors + timeouts + non-2xx + wrong answers. */
  errors: number;
  detail: { errors: number; timeouts: number; non2xx: number; mismatches: number; first?: string[] };
  loaderCpu: number;
}

/** What one timed run of a loader measured, before the rates are worked out. */
export interface RunTally {
  readonly ok: number;
  readonly seconds: number;
  readonly latencies: number[];
  readonly detail: TimedRun["detail"];
  /** process.cpuUsage() over the run. */
  readonly cpu: NodeJS.CpuUsage;
}

/** A timed run from its tally: rates, latency quantiles, errors and the loader's CPU share. */
export function timedRun(t: RunTally): TimedRun {
  return {
    requests: t.ok,
    seconds: t.seconds,
    rps: t.ok / t.seconds,
    p50Ms: quantile(t.latencies, 0.5),
    p99Ms: quantile(t.latencies, 0.99),
    errors: t.detail.errors + t.detail.timeouts + t.detail.non2xx + t.detail.mismatches,
    detail: t.detail,
    loaderCpu: (t.cpu.user + t.cpu.system) / 1e6 / t.seconds,
  };
}

/**
 * One timed run of a unary loader: each slot keeps calling, one call after
 * another, for `durationSec`. A call resolves with why its answer is wrong,
 * or undefined; a wrong answer counts as an error, not as a call served.
 */
export async function timedCalls(slots: ReadonlyArray<() => Promise<string | undefined>>, durationSec: number): Promise<TimedRun> {
  const now = () => Number(process.hrtime.bigint()) / 1e6;
  const latencies: number[] = [];
  let ok = 0;
  let errors = 0;
  const firstProblems: string[] = [];
  const cpu0 = process.cpuUsage();
  const t0 = now();
  const end = t0 + durationSec * 1000;
  await Promise.all(
    slots.map(async (call) => {
      while (now() < end) {
        const started = now();
        const problem = await call();
        if (problem === undefined) {
          ok++;
          latencies.push(now() - started);
        } else {
          errors++;
          if (firstProblems.length < 3) firstProblems.push(problem);
        }
      }
    }),
  );
  const detail = { errors, timeouts: 0, non2xx: 0, mismatches: 0, ...(firstProblems.length ? { first: firstProblems } : {}) };
  return timedRun({ ok, seconds: (now() - t0) / 1000, latencies, detail, cpu: process.cpuUsage(cpu0) });
}

/**
 * A unary loader's main: a warm-up run, then `runs` timed runs with
 * `MARK start|end <i>` around each (the parent meters the server's CPU
 * between them), then the result.
 */
export async function runTimed(config: { warmupSec: number; durationSec: number; runs: number }, once: (durationSec: number) => Promise<TimedRun>): Promise<void> {
  const warmup = await once(config.warmupSec);
  const runs: TimedRun[] = [];
  for (let i = 0; i < config.runs; i++) {
    process.stdout.write(`MARK start ${i}\n`);
    runs.push(await once(config.durationSec));
    process.stdout.write(`MARK end ${i}\n`);
  }
  printResult({ warmupErrors: warmup.errors, warmupRequests: warmup.requests, runs });
}

/** Prefix of the one stdout line a loader prints with its JSON result. */
export const RESULT_PREFIX = "RESULT ";

/**
 * V8 flags of a loader process, by script. Every Node loader's young
 * generation is held to 1 MiB: Node's HTTP/2 client keeps a share of every
 * call's objects past a scavenge, so with V8's default young generation a
 * loader pauses for long scavenges, and while it does no request goes out
 * and the server under test idles for the loader's reason. The h2 loader
 * paused 6-9 ms about ten times a second (the hub 87-89% busy under gRPC,
 * 95% under autocannon); grpc-js paused 19 ms at the median and up to
 * 38 ms, several times a second, with all its calls on its own side, and
 * the SDK's gRPC server and the hub idled alike (--trace-gc). With 1 MiB
 * the scavenges take under 1 ms at the median, for a little more GC time
 * per call (grpc-js: 30 µs against 24).
 * It is a flag of the client's process, the same for every server: the
 * client stacks' code and framing are unchanged.
 */
const SMALL_YOUNG_GENERATION = ["--max-semi-space-size=1"] as const;
const LOADER_NODE_FLAGS: Readonly<Record<string, readonly string[]>> = {
  "bench/loaders/h2-loader.ts": SMALL_YOUNG_GENERATION,
  "bench/loaders/client-loader.ts": SMALL_YOUNG_GENERATION,
};

/**
 * Runs a load generator script from bench/loaders in its own process,
 * pinned to the loader core, with its config as JSON in argv, and returns
 * the JSON it prints after RESULT_PREFIX. Loaders report failures in their
 * result rather than by exit code, so the bench records them and moves on.
 */
export async function runLoader<T>(script: string, config: unknown, pinning: CpuPinning, timeoutMs: number, interact?: (child: Child) => void): Promise<T> {
  const child = new Child(script, [...pinning.loader, ...nodeTs(script, [JSON.stringify(config)], LOADER_NODE_FLAGS[script])]);
  interact?.(child);
  try {
    const m = await child.waitForLine(new RegExp(`^${RESULT_PREFIX}(.*)$`), timeoutMs);
    return JSON.parse(m[1]!) as T;
  } finally {
    await child.stop("SIGTERM", 2_000);
  }
}

/** What a loader calls to hand its result back; the loader exits once it is written. */
export function printResult(result: unknown): void {
  process.stdout.write(`${RESULT_PREFIX}${JSON.stringify(result)}\n`, () => process.exit(0));
}

/** What a loader calls to read its config. */
export function loaderConfig<T>(): T {
  return JSON.parse(process.argv[2] ?? "{}") as T;
}
