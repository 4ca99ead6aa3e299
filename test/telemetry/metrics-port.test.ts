import { describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { REPO_ROOT, removeDir, tempDataDir } from "../helpers/server-process.js";

describe("npm start with --metrics-port 0", () => {
  it("prints the metrics port it picked, and /metrics answers there", async () => {
    const data = tempDataDir();
    const child = spawn(process.execPath, ["bin/start.mjs", "--port", "0", "--metrics-port", "0", "--data", data], { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] });
    try {
      const metricsUrl = await new Promise<string>((ok, fail) => {
        let out = "";
        const timer = setTimeout(() => fail(new Error(`no metrics line in: ${out}`)), 20_000);
        child.stdout.setEncoding("utf8").on("data", (d: string) => {
          out += d;
          const m = /a2a-hub metrics on (http:\/\/127\.0\.0\.1:(\d+)\/metrics)/.exec(out);
          if (m && out.includes("a2a-hub listening on")) {
            clearTimeout(timer);
            ok(m[1]!);
          }
        });
      });
      expect(new URL(metricsUrl).port).not.toBe("0");
      const res = await fetch(metricsUrl);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain("a2a_");
    } finally {
      child.kill("SIGKILL");
      removeDir(data);
    }
  });
});
