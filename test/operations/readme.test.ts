import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { missingCommands, skipsWithout } from "../helpers/outside-tools.js";
import { REPO_ROOT } from "../helpers/server-process.js";

/**
 * Every command in the manual (the README, then docs/*.md by name) works
 * verbatim, in order. Each
 * ```sh block runs as written in one bash session (cwd: a view of the
 * repository as a fresh clone, see cloneIn);
 * each ```ts block runs with tsx at its place in the order, and a
 * ```ts serves block is started and left serving once it prints its URL.
 * `npm` is wrapped only where the test is already what the command does:
 * `npm ci` (installed), `npm test` (running), and `npm start` runs in the
 * background until it says it is listening.
 */

interface Block {
  readonly file: string;
  readonly lang: string;
  readonly attrs: string;
  readonly body: string;
}

/** The manual: the README, then each docs/*.md page in name order (a page's examples may use the README's hub). */
function manualFiles(): string[] {
  const docs = readdirSync(join(REPO_ROOT, "docs")).filter((n) => n.endsWith(".md")).sort();
  return ["README.md", ...docs.map((n) => join("docs", n))];
}

function manualText(): string {
  return manualFiles().map((f) => readFileSync(join(REPO_ROOT, f), "utf8")).join("\n");
}

function readmeBlocks(): Block[] {
  return manualFiles().flatMap((f) =>
    [...readFileSync(join(REPO_ROOT, f), "utf8").matchAll(/^```(\S*)([^\n]*)\n([\s\S]*?)^```$/gm)].map((m) => ({ file: f, lang: m[1]!, attrs: m[2]!.trim(), body: m[3]! })),
  );
}

/** GitHub's anchors for a page's headings: lower case, punctuation dropped, spaces as hyphens. */
function headingAnchors(text: string): string[] {
  return [...text.replace(/^```[\s\S]*?^```$/gm, "").matchAll(/^#+ (.*)$/gm)].map((m) =>
    m[1]!.toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replace(/ /g, "-"),
  );
}

/** The ports the README's examples serve on. */
const PORTS = [41241, 41242, 41243, 41244, 41245];

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once("error", () => resolve(false));
    s.listen(port, "127.0.0.1", () => s.close(() => resolve(true)));
  });
}

/**
 * A fresh clone's view of the repository in `work` (each top-level entry
 * linked, but no ./data): the quick start's hub makes its default ./data
 * there, not in the repository, where a developer's own hub may hold it.
 */
function cloneIn(work: string): string {
  const clone = join(work, "clone");
  mkdirSync(clone);
  for (const name of readdirSync(REPO_ROOT)) if (name !== "data") symlinkSync(join(REPO_ROOT, name), join(clone, name));
  return clone;
}

function withoutDataDir(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { A2A_HUB_DATA: _, ...rest } = env;
  return rest;
}

/** The shell functions the blocks run with (npm wrapped, servers in the background). */
const PRELUDE = readFileSync(join(REPO_ROOT, "test/helpers/readme-runner.sh"), "utf8");

/** systemd's own checker of unit files, where this machine has it. */
const SYSTEMD_ANALYZE = "/usr/bin/systemd-analyze";
const noSystemd = skipsWithout({
  file: "readme.test.ts",
  what: "the systemd unit check",
  missing: missingCommands([SYSTEMD_ANALYZE]),
  packages: "systemd",
  requiredBy: "A2A_HUB_REQUIRE_CLIENTS",
});
/** The examples' own tools: curl calls the hubs, openssl makes the TLS example's certificate. */
const noExampleTools = skipsWithout({
  file: "readme.test.ts",
  what: "the examples run",
  missing: missingCommands(["curl", "openssl"]),
  packages: "curl openssl",
  requiredBy: "A2A_HUB_REQUIRE_CLIENTS",
});

describe("the README and docs/", () => {
  it.skipIf(noSystemd)(
    "its systemd unit passes systemd-analyze verify: known keys, valid values, an executable ExecStart",
    () => {
      const units = readmeBlocks().filter((b) => b.lang === "ini");
      expect(units).toHaveLength(1);
      const dir = mkdtempSync(join(tmpdir(), "a2a-hub-unit-"));
      try {
        const file = join(dir, "a2a-hub.service");
        writeFileSync(file, units[0]!.body);
        const r = spawnSync(SYSTEMD_ANALYZE, ["verify", file], { encoding: "utf8", timeout: 60_000 });
        // It exits 0 on values it ignores (a bad time span), so its warnings count too.
        expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: "" });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it("every relative link in the README and docs/ names a file that exists, and a heading in it when it has an #anchor", () => {
    const broken: string[] = [];
    for (const file of manualFiles()) {
      const text = readFileSync(join(REPO_ROOT, file), "utf8").replace(/^```[\s\S]*?^```$/gm, "");
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/.test(target)) continue;
        const [path, anchor] = target.split("#") as [string, string | undefined];
        const resolved = path === "" ? join(REPO_ROOT, file) : join(REPO_ROOT, dirname(file), path);
        if (!existsSync(resolved)) broken.push(`${file}: ${target} (no such file)`);
        else if (anchor && !headingAnchors(readFileSync(resolved, "utf8")).includes(anchor)) broken.push(`${file}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("writes a different messageId in every example (a reused one would name an earlier message)", () => {
    const text = manualText();
    // JSON ("messageId":"x"), TypeScript (messageId: "x") and Python (message_id="x") spellings.
    const ids = [...text.matchAll(/(?:"messageId"|\bmessageId|\bmessage_id)\s*[:=]\s*["']([^"']+)["']/g)].map((m) => m[1]!);
    expect(ids.length).toBeGreaterThanOrEqual(9);
    const reused = ids.filter((id, i) => ids.indexOf(id) !== i);
    expect(reused, `messageIds used twice: ${reused.join(", ")}`).toEqual([]);
  });

  it.skipIf(noExampleTools)("every ```sh and ```ts block runs verbatim, in order, against the servers it starts", { timeout: 300_000 }, async () => {
    const busy = [];
    for (const p of PORTS) if (!(await portFree(p))) busy.push(p);
    expect(busy, `the README's examples serve on ports ${PORTS.join(", ")}; free ${busy.join(", ")} to run this test`).toEqual([]);

    const work = mkdtempSync(join(tmpdir(), "a2a-hub-readme-"));
    // tsx resolves "a2a-hub" and "@a2a-js/sdk" from inside the repository, as a user's code in a clone would.
    const tsDir = join(REPO_ROOT, ".tmp", `readme-${process.pid}`);
    mkdirSync(tsDir, { recursive: true });
    rmSync(join("/tmp", "a2a-hub-demo"), { recursive: true, force: true });
    try {
      let script = PRELUDE;
      const blocks = readmeBlocks();
      const run = blocks.filter((b) => b.lang === "sh" || b.lang === "ts");
      expect(run.length).toBeGreaterThanOrEqual(8);
      run.forEach((b, i) => {
        script += `\necho "README RUNNER: block ${i + 1} (${b.file}, ${b.lang}${b.attrs ? ` ${b.attrs}` : ""})"\n`;
        if (b.lang === "sh") {
          script += b.body;
        } else {
          const file = join(tsDir, `block-${i + 1}.mts`);
          writeFileSync(file, b.body);
          // The a2a-hub-source condition points "a2a-hub" at src/ (its exports name dist/, which a clone builds only to pack).
          const tsx = `npx tsx --conditions=a2a-hub-source ${JSON.stringify(file)}`;
          script += b.attrs === "serves" ? `serve_until 'https?://' ${tsx}\n` : `${tsx}\n`;
        }
      });
      const r = spawnSync("bash", ["-c", script], {
        cwd: cloneIn(work),
        encoding: "utf8",
        timeout: 280_000,
        // No A2A_HUB_DATA: it would win over the tenants config's dataDir, and two README hubs would share one directory.
        env: { ...withoutDataDir(process.env), NO_COLOR: "1" },
      });
      const out = `${r.stdout}\n${r.stderr}`;
      expect(r.status, out).toBe(0);
      // Each example's answer, not just its exit code.
      expect(out).toContain("TASK_STATE_COMPLETED"); // curl SendMessage
      expect(out).toContain("hello from the CLI"); // a2a-hub send over gRPC
      for (const binding of ["JSONRPC", "HTTP+JSON", "GRPC"]) {
        expect(out, binding).toContain(`${binding} sent: 3`); // SDK sendMessage: COMPLETED
        expect(out, binding).toContain(`${binding} streamed: statusUpdate`);
        expect(out, `${binding} with a token`).toMatch(new RegExp(`^${binding.replace("+", "\\+")} 3$`, "m"));
      }
      expect(out).toContain('"tenant":"helper"'); // the tenant card
      expect(out).toContain("MAKE IT LOUD"); // your own agent
      expect(out).toMatch(/"protocolBinding":"GRPC"[^}]*"url":"localhost:41244"|"url":"localhost:41244"[^}]*"protocolBinding":"GRPC"/); // TLS card
      expect(out).not.toMatch(/"error"\s*:/);
      expect(out).not.toMatch(/"code"\s*:\s*"[a-z_]+"/); // a Connect or buf curl error
    } finally {
      rmSync(work, { recursive: true, force: true });
      rmSync(tsDir, { recursive: true, force: true });
    }
  });
});
