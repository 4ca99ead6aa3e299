import { afterEach, describe, expect, it } from "vitest";
import { hashToken } from "../../src/auth/index.js";
import { parseCli } from "../../src/cli/index.js";
import { hubClient } from "../helpers/hub-clients.js";
import { memoryLogger } from "../helpers/memory-logger.js";
import { textRequest, taskOf } from "../helpers/messages.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";

const hubs: TestHub[] = [];
afterEach(async () => {
  await Promise.all(hubs.splice(0).map((h) => h.stop()));
});

const SECRET_TEXT = "the launch code is 0000";

describe("structured request logs", () => {
  it("writes one JSON line per request with binding, method, agent, tenant, task, status and duration, never the text or the token", async () => {
    const log = memoryLogger("info");
    const t = await startTestHub({ logger: log.logger, access: { tenants: [{ tenant: "acme", tokenHashes: [hashToken("acme-token")] }], agentTenants: new Map() } });
    hubs.push(t);
    const auth = { authorization: "Bearer acme-token" };
    const grpc = await t.client("grpc").sendMessage(textRequest(SECRET_TEXT), { headers: auth });
    const res = await fetch(t.url, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "missing-task" } }),
    });
    expect((await res.json()).error.code).toBe(-32001);
    const requests = log.lines().filter((l) => l.message === "request");
    expect(requests).toHaveLength(2);
    expect(requests[0]).toMatchObject({ level: "info", binding: "grpc", method: "SendMessage", agent: "echo", tenant: "acme", status: "ok", taskId: taskOf(grpc).id, contextId: grpc.payload.value!.contextId });
    expect(typeof requests[0]!.durationMs).toBe("number");
    expect(typeof requests[0]!.time).toBe("string");
    expect(requests[1]).toMatchObject({ binding: "jsonrpc", method: "GetTask", agent: "echo", tenant: "acme", status: "TaskNotFound", taskId: "missing-task" });
    const all = JSON.stringify(log.lines());
    expect(all).not.toContain("launch code");
    expect(all).not.toContain("acme-token");
    expect(all).not.toContain("traceId"); // tracing is off
  });

  it("logs each binding's calls, and nothing per request above info", async () => {
    const log = memoryLogger("info");
    const t = await startTestHub({ logger: log.logger });
    hubs.push(t);
    for (const binding of ["connect-h1", "jsonrpc", "rest"] as const) {
      const c = await hubClient(t.url, binding);
      for await (const _ of c.stream(textRequest("hi"))) void _;
      c.close();
    }
    const lines = log.lines().filter((l) => l.message === "request");
    expect(lines.map((l) => [l.binding, l.method, l.status])).toEqual([
      ["connect", "SendStreamingMessage", "ok"],
      ["jsonrpc", "SendStreamingMessage", "ok"],
      ["rest", "SendStreamingMessage", "ok"],
    ]);
    expect(lines.every((l) => typeof l.events === "number" && (l.events as number) > 1)).toBe(true);

    const quiet = memoryLogger("warn");
    const q = await startTestHub({ logger: quiet.logger });
    hubs.push(q);
    await q.client("grpc").sendMessage(textRequest("hi"));
    expect(quiet.lines()).toEqual([]);
  });

  it("takes the level from --log-level over A2A_HUB_LOG_LEVEL over the file, and refuses an unknown one", () => {
    const env = { A2A_HUB_LOG_LEVEL: "warn" };
    const serve = (argv: string[], e: NodeJS.ProcessEnv = {}) => {
      const c = parseCli(argv, e);
      if (c.command !== "serve") throw new Error("not serve");
      return c.config;
    };
    expect(serve([]).logLevel).toBe("info");
    expect(serve([], env).logLevel).toBe("warn");
    expect(serve(["--log-level", "debug"], env).logLevel).toBe("debug");
    expect(() => serve(["--log-level", "loud"])).toThrow(/--log-level.*must be one of/);
    expect(() => serve([], { A2A_HUB_LOG_LEVEL: "loud" })).toThrow(/A2A_HUB_LOG_LEVEL/);
  });

  it("writes pretty lines when its destination is a terminal, JSON otherwise", async () => {
    const { PassThrough } = await import("node:stream");
    const { createHubLogger } = await import("../../src/telemetry/index.js");
    const written = (tty: boolean): Promise<string> => {
      const out = Object.assign(new PassThrough(), { isTTY: tty });
      let text = "";
      out.on("data", (c: Buffer) => (text += c.toString("utf8")));
      createHubLogger({ destination: out }).info("request", { binding: "grpc", method: "SendMessage" });
      return new Promise((resolve) => setTimeout(() => resolve(text), 50));
    };
    const pretty = await written(true);
    expect(pretty).toMatch(/INFO.*request/);
    expect(() => JSON.parse(pretty)).toThrow();
    expect(JSON.parse(await written(false))).toMatchObject({ level: "info", message: "request", binding: "grpc", method: "SendMessage" });
  });
});
