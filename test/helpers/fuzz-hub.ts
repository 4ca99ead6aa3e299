import { expect } from "vitest";
import type fc from "fast-check";
import type { Logger } from "../../src/core/index.js";
import { FuzzStats, RawHttpClient, runFuzz, type RawReply, type RawRequest } from "./fuzz-http.js";
import type { FuzzPool } from "./fuzz-arbitraries.js";
import type { FuzzLimits, Verdict } from "./fuzz-oracle.js";
import { post, rpc } from "./jsonrpc-requests.js";
import { userMessage } from "./json-messages.js";
import { startTestHub, type TestHub } from "./test-hub.js";
import { startReceiver, type WebhookReceiver } from "./webhook-receiver.js";

/** A hub to fuzz: known tasks and push configs to aim at, a webhook for deliveries, and the errors it logged. */
export interface FuzzHub {
  readonly t: TestHub;
  readonly pool: FuzzPool;
  readonly limits: FuzzLimits;
  /** Error-level log entries: a facade logs one for every failure it did not expect. */
  readonly loggedErrors: string[];
  stop(): Promise<void>;
}

/**
 * Starts a hub with a small body limit (so that "too large" is reached
 * cheaply), push delivery allowed to a loopback webhook, and a few tasks
 * in known states made over JSON-RPC.
 */
export async function startFuzzHub(limits: FuzzLimits = { maxBodyBytes: 256 * 1024, maxJsonDepth: 64 }): Promise<FuzzHub> {
  const loggedErrors: string[] = [];
  const logger: Logger = {
    info() {},
    warn() {},
    error: (message, fields) => void loggedErrors.push(`${message} ${JSON.stringify(fields ?? {}).slice(0, 2_000)}`),
  };
  const receiver: WebhookReceiver = await startReceiver();
  const t = await startTestHub({ logger, ...limits, push: { allowCidrs: ["127.0.0.1/32"], retry: { baseMs: 10, capMs: 10, attempts: 2 } } });
  const send = async (text: string): Promise<{ id: string; contextId: string }> => {
    const r = await post(t.url, rpc("SendMessage", { message: userMessage(text) }));
    const task = r.json?.result?.task;
    if (!task) throw new Error(`could not make a ${text} task: ${r.text}`);
    return { id: task.id, contextId: task.contextId };
  };
  const completed = await send("hello");
  const failed = await send("fail");
  const interrupted = await send("input-required");
  for (const id of ["cfg-1", "cfg-2"]) {
    const config = await post(t.url, rpc("CreateTaskPushNotificationConfig", { taskId: interrupted.id, id, url: receiver.url }));
    if (!config.json?.result) throw new Error(`could not make a push config: ${config.text}`);
  }
  return {
    t,
    limits,
    loggedErrors,
    pool: {
      taskIds: [completed.id, failed.id, interrupted.id],
      subscribeIds: [completed.id, failed.id],
      pushConfigs: [[interrupted.id, "cfg-1"]],
      deletableConfig: [interrupted.id, "cfg-2"],
      contextIds: [completed.contextId, interrupted.contextId],
      pushUrl: receiver.url,
    },
    stop: async () => {
      await t.stop();
      await receiver.close();
    },
  };
}

/** One binding's fuzz run against a FuzzHub: what to generate, how to send a case, how to judge its answer. */
export interface BindingFuzz<C> {
  /** The binding's name in the report ("JSON-RPC"). */
  readonly label: string;
  readonly cases: fc.Arbitrary<C>;
  readonly total: number;
  readonly seed: number;
  describe(c: C): string;
  request(c: C): RawRequest;
  judge(c: C, reply: RawReply): Promise<Verdict>;
  /** Whether an outcome is a server failure (a -32603, a 5xx): the run must have none. */
  readonly serverFailure: (outcome: string) => boolean;
}

/** Exchanges in flight at once. */
const FUZZ_CONCURRENCY = 8;
/** An answer slower than this is a hang. */
const FUZZ_TIMEOUT_MS = 10_000;

/**
 * Sends `total` generated cases, FUZZ_CONCURRENCY at a time, and fails on
 * any wrong, missing or late answer, any server failure outcome, and any
 * error the hub logged. Prints the counts by generator and by outcome.
 */
export async function fuzzBinding<C>(fz: FuzzHub, run: BindingFuzz<C>): Promise<void> {
  const stats = new FuzzStats();
  const client = new RawHttpClient(new URL(fz.t.url), FUZZ_CONCURRENCY);
  const started = Date.now();
  try {
    await runFuzz<C>({
      cases: run.cases,
      total: run.total,
      concurrency: FUZZ_CONCURRENCY,
      seed: run.seed,
      describe: run.describe,
      exchange: async (c) => {
        const verdict = await run.judge(c, await client.send(run.request(c), FUZZ_TIMEOUT_MS));
        stats.count((c as { kind: string }).kind, verdict.outcome);
        return verdict.problems;
      },
    });
  } finally {
    client.close();
    console.log(`${run.label} fuzz (seed ${run.seed}) in ${((Date.now() - started) / 1000).toFixed(1)} s: ${stats.summary()}`);
    if (fz.loggedErrors.length > 0) console.log(`the hub logged ${fz.loggedErrors.length} error(s):\n${fz.loggedErrors.slice(0, 5).join("\n")}`);
  }
  expect(stats.exchanges).toBeGreaterThanOrEqual(run.total);
  // The judge fails a run on the first server failure; this says so in the summary too.
  expect(stats.outcomes(run.serverFailure)).toBe(0);
  expect(fz.loggedErrors, fz.loggedErrors.slice(0, 5).join("\n")).toEqual([]);
}
