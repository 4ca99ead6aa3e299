import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { agentCard } from "../../src/index.js";
import { REPO_ROOT } from "../helpers/server-process.js";

describe("a2a-hub as a library", () => {
  it("startHub prints nothing by itself and returns the URL it serves", () => {
    const dir = mkdtempSync(join(tmpdir(), "a2a-hub-lib-"));
    // Inside the package (a gitignored folder), so that "a2a-hub" resolves to it by name.
    mkdirSync(join(REPO_ROOT, ".tmp"), { recursive: true });
    const script = join(REPO_ROOT, ".tmp", `lib-test-${process.pid}.mts`);
    // Imports the package by its name, as a user's code does (its sources: the a2a-hub-source condition of its exports).
    writeFileSync(
      script,
      `import { startHub } from "a2a-hub";\n` +
        `const hub = await startHub({ port: 0, dataDir: ${JSON.stringify(dir)} });\n` +
        `const card = await (await fetch(new URL(".well-known/agent-card.json", hub.url))).json();\n` +
        `await hub.close();\n` +
        `process.stdout.write(JSON.stringify({ url: hub.url, name: card.name }));\n`,
    );
    try {
      const r = spawnSync(join(REPO_ROOT, "node_modules/.bin/tsx"), ["--conditions=a2a-hub-source", script], { cwd: REPO_ROOT, encoding: "utf8", timeout: 60_000 });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr).toBe("");
      const out = JSON.parse(r.stdout);
      expect(out.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      expect(out.name).toBe("a2a-hub echo");
    } finally {
      rmSync(script, { force: true });
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("agentCard() fills every field a valid card needs from a name and a description", () => {
    const card = agentCard({ name: "Mine", description: "Does my thing" });
    expect(card.version).toBe("1.0.0");
    expect(card.defaultInputModes).toEqual(["text/plain", "application/json"]);
    expect(card.defaultOutputModes).toEqual(["text/plain", "application/json"]);
    expect(card.capabilities).toMatchObject({ streaming: true, pushNotifications: true });
    expect(card.skills).toHaveLength(1);
    expect(card.skills[0]).toMatchObject({ id: "default", name: "Mine", description: "Does my thing" });
    const custom = agentCard({ name: "X", description: "Y", skills: [{ id: "s", name: "S", description: "D", tags: ["t"] }], streaming: false, inputModes: ["text/plain"] });
    expect(custom.skills.map((s) => s.tags)).toEqual([["t"]]);
    expect(custom.capabilities?.streaming).toBe(false);
    expect(custom.defaultInputModes).toEqual(["text/plain"]);
    expect(() => agentCard({ name: "X", description: "Y", skills: [] })).toThrow(/at least one skill/);
  });
});
