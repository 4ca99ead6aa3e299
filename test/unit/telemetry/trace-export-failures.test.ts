import { afterAll, describe, expect, it } from "vitest";
import { createServer } from "node:net";
import { exportFailureReporter } from "../../../src/telemetry/tracing/export-failures.js";
import { killAllServers, removeDir, sleep, spawnServer, tempDataDir } from "../../helpers/server-process.js";

/** A collector that cannot be reached is said, once and then at most once a minute, never silently. */

afterAll(() => killAllServers());

describe("the reporter of failed span exports", () => {
  it("says the first failure at once with the endpoint and error, then at most once per interval with the count, and the recovery once", () => {
    const lines: Array<[string, Record<string, unknown>]> = [];
    let t = 0;
    const r = exportFailureReporter("http://127.0.0.1:9/v1/traces", (m, f) => lines.push([m, f]), 60_000, () => t);
    r.failed(new Error("connect ECONNREFUSED"));
    for (let i = 0; i < 5; i++) {
      t += 1_000;
      r.failed(new Error("connect ECONNREFUSED"));
    }
    expect(lines).toEqual([["trace export failed: spans are being dropped", { endpoint: "http://127.0.0.1:9/v1/traces", error: "connect ECONNREFUSED", failures: 1 }]]);
    t += 60_000;
    r.failed(new Error("timeout"));
    expect(lines[1]![1]).toMatchObject({ error: "timeout", failures: 6 });
    r.succeeded();
    r.succeeded();
    expect(lines.map(([m]) => m)).toEqual(["trace export failed: spans are being dropped", "trace export failed: spans are being dropped", "trace export works again"]);
  });
});

describe("a hub whose collector is unreachable", () => {
  it("logs the failed export with the collector's endpoint on stderr", async () => {
    // A port that was free a moment ago: nothing listens there.
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, "127.0.0.1", () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const endpoint = `http://127.0.0.1:${port}/v1/traces`;
    const data = tempDataDir();
    try {
      const server = await spawnServer(data, { launcher: "start", env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_TIMEOUT: "500" } });
      await server.client("connect").sendMessage({ message: { messageId: "otel-down-1", role: 1, parts: [{ content: { case: "text", value: "hi" } }] } });
      for (let i = 0; i < 120 && !server.stderr().includes("trace export failed"); i++) await sleep(250);
      const line = server.stderr().split("\n").find((l) => l.includes("trace export failed"));
      expect(line, server.stderr()).toBeDefined();
      expect(line).toContain(endpoint);
      await server.kill();
    } finally {
      removeDir(data);
    }
  }, 60_000);
});
