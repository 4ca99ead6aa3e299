import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFuzzHub, type FuzzHub } from "./helpers/fuzz-hub.js";
import { bodyPreview, fuzzSeed, FuzzStats, RawHttpClient, runFuzz } from "./helpers/fuzz-http.js";
import { judgeRest } from "./helpers/fuzz-oracle.js";
import { restCase, type RestCase } from "./helpers/fuzz-rest-cases.js";
import { expectStatusError, rest, sendText } from "./helpers/rest.js";
import { userMessage } from "./helpers/json-messages.js";

/** Requests to send; FUZZ_SEED replays a failing run. */
const TOTAL = 5_000;
const CONCURRENCY = 8;
const SEED = fuzzSeed(0x2a2a_2002);
const TIMEOUT_MS = 10_000;

let fz: FuzzHub;
beforeAll(async () => {
  fz = await startFuzzHub();
});
afterAll(async () => {
  await fz?.stop();
});

describe("REST facade under generated input", () => {
  const stats = new FuzzStats();

  it(
    `answers ${TOTAL} generated requests with a ProtoJSON result, an event stream or a §11.6 error, never a crash or a hang`,
    async () => {
      const client = new RawHttpClient(new URL(fz.t.url), CONCURRENCY);
      const started = Date.now();
      try {
        await runFuzz<RestCase>({
          cases: restCase(fz.pool),
          total: TOTAL,
          concurrency: CONCURRENCY,
          seed: SEED,
          describe: (c) => `${c.kind} ${c.method} ${bodyPreview(c.target, 200)} ${JSON.stringify(c.headers)} body ${bodyPreview(c.body)}`,
          exchange: async (c) => {
            const reply = await client.send({ method: c.method, target: c.target, headers: c.headers, body: c.body }, TIMEOUT_MS);
            const verdict = await judgeRest(c, reply);
            stats.count(c.kind, verdict.outcome);
            return verdict.problems;
          },
        });
      } finally {
        client.close();
        console.log(`REST fuzz (seed ${SEED}) in ${((Date.now() - started) / 1000).toFixed(1)} s: ${stats.summary()}`);
        if (fz.loggedErrors.length > 0) console.log(`the hub logged ${fz.loggedErrors.length} error(s):\n${fz.loggedErrors.slice(0, 5).join("\n")}`);
      }
      expect(stats.exchanges).toBeGreaterThanOrEqual(TOTAL);
      // The judge fails a run on the first 5xx; this says so in the summary too.
      expect(stats.outcomes((o) => o.startsWith("5"))).toBe(0);
      expect(fz.loggedErrors, fz.loggedErrors.slice(0, 5).join("\n")).toEqual([]);
    },
    240_000,
  );

  it("stays responsive afterwards, with no run or subscription left behind", async () => {
    const task = await sendText(fz.t.url, "hello after the storm");
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    const engine = fz.t.hub.core.engine;
    await expect.poll(() => engine.activeRuns, { timeout: 10_000 }).toBe(0);
    await expect.poll(() => engine.bus.listenerCount(), { timeout: 10_000 }).toBe(0);
  });
});

describe("what the REST fuzzer found, pinned", () => {
  it("a number literal beyond a double (1e400) is 400 INVALID_ARGUMENT naming its field", async () => {
    const raw = `{"message":${JSON.stringify(userMessage("hello"))},"metadata":{"a":{"b":[1e400]}}}`;
    const r = await rest(fz.t.url, "POST", "/message:send", { raw });
    expectStatusError(r, 400, "INVALID_ARGUMENT");
    expect(r.json.error.message).toContain("metadata.a.b[0]");
    expect((await rest(fz.t.url, "GET", "/tasks?includeArtifacts=true")).status).toBe(200);
  });
});
