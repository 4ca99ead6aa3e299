import { afterAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BackupError, backupDataDir, restoreDataDir } from "../../src/lifecycle/index.js";
import { DataDirLockedError } from "../../src/store/index.js";
import { cli } from "../helpers/cli-process.js";
import { killAllServers, spawnServer } from "../helpers/server-process.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";

/** A backup while the hub serves, its verification, and a restore a new hub serves from. */

const dirs: string[] = [];
const tempDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), "a2a-hub-backup-"));
  dirs.push(d);
  return d;
};
afterAll(async () => {
  await killAllServers();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** JSON-RPC SendMessage on the hub at `url`; resolves with the completed task's JSON. */
async function send(url: string, text: string): Promise<any> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: { messageId: randomUUID(), role: "ROLE_USER", parts: [{ text }] } } }),
  });
  const json = (await res.json()) as any;
  if (!json.result?.task) throw new Error(`send failed: ${JSON.stringify(json)}`);
  return json.result.task;
}

async function getTask(url: string, id: string): Promise<any> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id } }) });
  return ((await res.json()) as any).result;
}

/** Keeps `n` senders busy until `stop` resolves; counts the sends acknowledged. */
function writeLoad(url: string, n: number): { stop: () => Promise<number> } {
  let running = true;
  let acknowledged = 0;
  const workers = Array.from({ length: n }, async () => {
    while (running) {
      try {
        await send(url, "load");
        acknowledged++;
      } catch {
        // The hub may be killed under the load: what was acknowledged before is what counts.
        return;
      }
    }
  });
  return {
    stop: async () => {
      running = false;
      await Promise.all(workers);
      return acknowledged;
    },
  };
}

describe("backup and restore of a SQLite data directory", () => {
  it("a backup taken under a write load verifies, holds every task acknowledged before it began, and a hub restored from it serves them", async () => {
    const data = tempDir();
    const hub: TestHub = await startTestHub({ dataDir: data });
    const before = await Promise.all(Array.from({ length: 50 }, (_, i) => send(hub.url, `before ${i}`)));
    const load = writeLoad(hub.url, 8);
    const out = join(tempDir(), "hub.backup");
    const report = await backupDataDir(data, out);
    const acknowledged = await load.stop();
    expect(acknowledged).toBeGreaterThan(0);
    expect(report.rows.tasks).toBeGreaterThanOrEqual(before.length);
    expect(report.rows.events).toBeGreaterThan(0);
    await hub.stop();

    const restored = tempDir();
    const r = restoreDataDir(out, restored);
    expect(r.rows).toEqual(report.rows);
    const again = await startTestHub({ dataDir: restored });
    try {
      for (const t of before) expect(await getTask(again.url, t.id)).toEqual(t);
      // The restored hub takes new work beside the old.
      expect((await send(again.url, "after restore")).status.state).toBe("TASK_STATE_COMPLETED");
    } finally {
      await again.stop();
    }
  });

  it("restore refuses a directory a running hub holds, and one that has a database unless forced", async () => {
    const data = tempDir();
    const hub = await startTestHub({ dataDir: data });
    await send(hub.url, "one");
    const out = join(tempDir(), "b.db");
    await backupDataDir(data, out);
    try {
      expect(() => restoreDataDir(out, data)).toThrow(DataDirLockedError);
    } finally {
      await hub.stop();
    }
    expect(() => restoreDataDir(out, data)).toThrow(/already holds a database/);
    expect(restoreDataDir(out, data, { force: true }).rows.tasks).toBe(1);
  });

  it("a file that is not a verified backup is refused, and a failed backup leaves no file", async () => {
    const junk = join(tempDir(), "junk.db");
    writeFileSync(junk, "not a database");
    expect(() => restoreDataDir(junk, tempDir())).toThrow(BackupError);
    const out = join(tempDir(), "none.db");
    await expect(backupDataDir(tempDir(), out)).rejects.toThrow(/no hub database/);
    expect(existsSync(out)).toBe(false);
  });

  it("a backup of a directory whose hub is SIGKILLed during the copy still completes and verifies", async () => {
    const data = tempDir();
    const server = await spawnServer(data);
    await Promise.all(Array.from({ length: 300 }, (_, i) => send(server.url, `fill ${i}`)));
    const load = writeLoad(server.url, 8);
    await new Promise((r) => setTimeout(r, 100));
    const backup = backupDataDir(data, join(tempDir(), "killed.db"));
    server.signal("SIGKILL");
    const report = await backup;
    await load.stop();
    expect(report.rows.tasks).toBeGreaterThanOrEqual(300);
    const restored = tempDir();
    restoreDataDir(report.file, restored);
    const again = await startTestHub({ dataDir: restored });
    try {
      expect((await send(again.url, "alive")).status.state).toBe("TASK_STATE_COMPLETED");
    } finally {
      await again.stop();
    }
  });

  it("the CLI: a2a-hub backup prints the verified rows; restore onto a live hub's directory fails naming it", async () => {
    const data = tempDir();
    const hub = await startTestHub({ dataDir: data });
    try {
      await send(hub.url, "cli");
      const out = join(tempDir(), "cli.db");
      const b = await cli(["backup", "--data", data, "--out", out]);
      expect(b.code, b.stderr).toBe(0);
      expect(b.stdout).toMatch(/^backup .*cli\.db \(\d+ bytes, verified\): .*tasks 1/m);
      const r = await cli(["restore", "--from", out, "--data", data]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/in use by another hub \(pid \d+/);
      const u = await cli(["backup", "--data", data]);
      expect(u.code).toBe(2);
      expect(u.stderr).toMatch(/--out is required/);
    } finally {
      await hub.stop();
    }
  });
});
