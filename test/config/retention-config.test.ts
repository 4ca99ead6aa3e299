import { afterAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TaskState } from "../../gen/a2a/v1/a2a_pb.js";
import { ruleFor } from "../../src/lifecycle/index.js";
import { DATABASE_FILE, SqliteTaskStore } from "../../src/store/index.js";
import { parseCli } from "../../src/cli/index.js";
import { buildConfig, readConfigFile } from "../../src/server/index.js";
import { configFiles, errorOf } from "../helpers/config-files.js";
import { seedTasks } from "../helpers/seed-tasks.js";
import { startTestHub } from "../helpers/test-hub.js";

/** Retention settings: durations, where each comes from, which rule wins, and off unless configured. */

const files = configFiles("a2a-hub-retention-config-");
const dirs: string[] = [];
afterAll(() => {
  files.remove();
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
});
const DAY = 86_400_000;
let n = 0;
const fromFile = (text: string, env: NodeJS.ProcessEnv = {}) => buildConfig(readConfigFile(files.write(`r${n++}.yaml`, text)), env);

describe("retention configuration", () => {
  it("reads durations as 500ms, 1s, 15m, 12h and 30d", () => {
    for (const [text, ms] of [["500ms", 500], ["1s", 1_000], ["15m", 900_000], ["12h", 43_200_000], ["30d", 30 * DAY]] as const) {
      expect(fromFile(`retention:\n  terminalAfter: ${text}\n`).retention?.terminalAfterMs, text).toBe(ms);
    }
  });

  it("a malformed duration is a ConfigError naming the key and its line, the variable or the flag", () => {
    const e = errorOf(() => fromFile("agents:\n  - id: echo\n    kind: echo\nretention:\n  interruptedAfter: 30 days\n"));
    expect(e.key).toBe("retention.interruptedAfter");
    expect(e.where?.line).toBe(5);
    expect(e.problem).toMatch(/duration/);
    for (const bad of ["0s", "1.5d", "-1d", "30", "1w"]) {
      expect(errorOf(() => fromFile("", { A2A_HUB_RETENTION_TERMINAL_AFTER: bad })).key, bad).toBe("A2A_HUB_RETENTION_TERMINAL_AFTER");
    }
    expect(errorOf(() => parseCli(["--interrupted-after", "soon"], {})).key).toBe("--interrupted-after");
    expect(errorOf(() => fromFile("retention:\n  keep: 1d\n")).key).toBe("retention.keep");
    expect(errorOf(() => fromFile("tenants:\n  - id: a\n    retention: { terminalAfter: forever }\n")).key).toBe("tenants[0].retention.terminalAfter");
  });

  it("is off unless configured; flags win over variables, which win over the file", () => {
    expect(fromFile("agents:\n  - id: echo\n    kind: echo\n").retention).toBeUndefined();
    const file = files.write("layers.yaml", "retention:\n  terminalAfter: 30d\n  interruptedAfter: 90d\n");
    const env = { A2A_HUB_RETENTION_TERMINAL_AFTER: "7d" };
    const viaEnv = parseCli(["--config", file], env);
    const viaFlag = parseCli(["--config", file, "--terminal-after", "1h"], env);
    if (viaEnv.command !== "serve" || viaFlag.command !== "serve") throw new Error("expected serve");
    expect(viaEnv.config.retention).toMatchObject({ terminalAfterMs: 7 * DAY, interruptedAfterMs: 90 * DAY });
    expect(viaFlag.config.retention).toMatchObject({ terminalAfterMs: 3_600_000, interruptedAfterMs: 90 * DAY });
  });

  it("per tenant and per agent: an agent's own setting over its tenant's over the hub's, field by field", () => {
    const policy = fromFile(
      [
        "retention: { terminalAfter: 30d, interruptedAfter: 90d }",
        "tenants:",
        "  - id: acme",
        "    retention: { terminalAfter: 10d, interruptedAfter: 20d }",
        "  - id: beta",
        "agents:",
        "  - id: audit",
        "    kind: echo",
        "    retention: { terminalAfter: 365d }",
        "  - id: echo",
        "    kind: echo",
      ].join("\n"),
    ).retention!;
    expect(ruleFor(policy, { tenant: "beta", agentId: "echo" })).toEqual({ terminalAfterMs: 30 * DAY, interruptedAfterMs: 90 * DAY });
    expect(ruleFor(policy, { tenant: "acme", agentId: "echo" })).toEqual({ terminalAfterMs: 10 * DAY, interruptedAfterMs: 20 * DAY });
    expect(ruleFor(policy, { tenant: "acme", agentId: "audit" })).toEqual({ terminalAfterMs: 365 * DAY, interruptedAfterMs: 20 * DAY });
    expect(ruleFor(policy, { tenant: "beta", agentId: "audit" })).toEqual({ terminalAfterMs: 365 * DAY, interruptedAfterMs: 90 * DAY });
  });

  it("a hub with no retention configured keeps a task however old", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "a2a-hub-retention-off-"));
    dirs.push(dataDir);
    const store = new SqliteTaskStore({ filename: join(dataDir, DATABASE_FILE) });
    await seedTasks(store, [{ scope: { tenant: "default", agentId: "echo" }, id: "ancient", state: TaskState.COMPLETED, ageMs: 3_000 * DAY }]);
    store.close();
    const hub = await startTestHub({ dataDir });
    try {
      // A configured sweep's first pass comes within a second of the start.
      await new Promise((r) => setTimeout(r, 1_500));
      const res = await fetch(hub.url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "ancient" } }) });
      expect(((await res.json()) as any).result?.id).toBe("ancient");
    } finally {
      await hub.stop();
    }
  });
});
