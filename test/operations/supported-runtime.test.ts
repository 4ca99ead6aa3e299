import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/server-process.js";

/**
 * The runtime the suite runs on: npm scripts put node_modules/.bin first on
 * PATH, where the node-linux-* package links the project's Node, so `npm test`
 * runs on it even on a machine whose own node is older.
 */
describe("the supported runtime", () => {
  it("runs on Node.js 22 or newer", () => {
    expect(Number(process.versions.node.split(".")[0])).toBeGreaterThanOrEqual(22);
  });

  it("SQLite statements and iterators the collector finalizes outside JavaScript do not abort the process", () => {
    // better-sqlite3 12 on Node 24.19+ aborted here: `Assertion failed: (env) != nullptr` in
    // node::RemoveEnvironmentCleanupHook, from Statement::~Statement run by a collection outside any context.
    const child = spawnSync(process.execPath, ["--expose-gc", join(REPO_ROOT, "test/fixtures/statement-churn.mjs")], { encoding: "utf8", timeout: 60_000 });
    expect(child.stderr).not.toContain("Assertion failed");
    expect(child.signal).toBeNull();
    expect(child.status).toBe(0);
    expect(child.stdout.trim()).toBe("survived");
  });
});
