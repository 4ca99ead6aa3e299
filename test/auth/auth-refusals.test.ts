import { describe, expect, it } from "vitest";
import { hashToken, RefusalLog } from "../../src/auth/index.js";
import { callWith } from "../helpers/auth-probe.js";
import { memoryLogger } from "../helpers/memory-logger.js";
import { configHubOptions } from "../helpers/tenant-hub.js";
import { startTestHub } from "../helpers/test-hub.js";

/** Every refusal counted and logged with its reason, rate-limited so an attack cannot flood the log, never the credential. */
describe("refusals in the log", () => {
  it("at most 20 lines per 10 s window, then one line saying how many were left out", () => {
    const lines: Array<{ message: string; fields?: Record<string, unknown> }> = [];
    const counted: string[] = [];
    let now = 1_000_000;
    const log = new RefusalLog({ warn: (message, fields) => lines.push({ message, fields }) }, (binding, reason) => counted.push(`${binding}/${reason}`), () => now);
    for (let i = 0; i < 25; i++) log.report("rest", "expired", "the token has expired");
    expect(counted).toHaveLength(25);
    expect(lines).toHaveLength(20);
    expect(lines[0]).toEqual({ message: "request refused", fields: { binding: "rest", reason: "expired", why: "the token has expired" } });
    now += 10_000;
    log.report("grpc", "signature", "the token's signature does not verify");
    expect(lines.slice(20)).toEqual([
      { message: "auth refusals not logged (rate limit of the log)", fields: { suppressed: 5, windowMs: 10_000 } },
      { message: "request refused", fields: { binding: "grpc", reason: "signature", why: "the token's signature does not verify" } },
    ]);
  });

  it("a flood of bad tokens is counted in full, logged at most 20 times with its reason, and never shows a token; 429s are logged too", async () => {
    const memory = memoryLogger("warn");
    const hub = await startTestHub({
      ...configHubOptions({ tenants: [{ id: "acme", tokens: [hashToken("good-token")] }], agents: [{ id: "echo", kind: "echo" }], rateLimit: { burst: 1, perSecond: 1 } }),
      logger: memory.logger,
      metrics: { tokenHash: hashToken("scrape") },
    });
    try {
      // Over the rate limit (burst 1): the 429 is logged in the same window.
      expect(await callWith(hub, "rest", "good-token", { send: "one" })).toMatchObject({ ok: true });
      expect(await callWith(hub, "rest", "good-token", { send: "two" })).toMatchObject({ status: "429" });
      for (let i = 0; i < 60; i++) await callWith(hub, i % 2 === 0 ? "rest" : "grpc", `bad-token-${i}`, { get: "any" });
      const metrics = await (await fetch(`${hub.url}metrics`, { headers: { authorization: "Bearer scrape" } })).text();
      expect(metrics).toContain('a2a_auth_refusals_total{binding="rest",reason="signature"} 30');
      expect(metrics).toContain('a2a_auth_refusals_total{binding="grpc",reason="signature"} 30');
      const refused = memory.lines().filter((l) => l.message === "request refused");
      expect(refused).toHaveLength(20);
      expect(refused[0]).toMatchObject({ binding: "rest", tenant: "acme", why: "over the tenant's rate limit" });
      for (const line of refused.slice(1)) expect(line).toMatchObject({ reason: "signature", why: "the token is not valid" });
      expect(JSON.stringify(memory.lines())).not.toContain("bad-token-");
    } finally {
      await hub.stop();
    }
  });
});
