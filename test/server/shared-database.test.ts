import { afterEach, describe, expect, it } from "vitest";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TaskState } from "../../gen/a2a/v1/a2a_pb.js";
import { silentLogger } from "../../src/core/index.js";
import { DataDirLockedError } from "../../src/index.js";
import { startHub, type Hub } from "../../src/server/index.js";
import { readHubDb } from "../helpers/hub-database.js";
import { textOf } from "../helpers/message-text.js";
import { taskOf, textRequest } from "../helpers/messages.js";
import { killAllServers, removeDir, spawnServer, tempDataDir } from "../helpers/server-process.js";

let dataDir: string | undefined;
const hubs: Hub[] = [];
afterEach(async () => {
  await Promise.all(hubs.splice(0).map((h) => h.close()));
  await killAllServers();
  removeDir(dataDir);
  dataDir = undefined;
});

/** The lock file a hub holds in its data directory. */
function lockFile(dir: string): string {
  return join(dir, "hub.lock");
}

/**
 * One hub per SQLite data directory. The store writes as the file's only
 * writer (task rows, the next rowid and the write order held in memory),
 * and a hub's start-up fails every task it finds in flight: a second hub on
 * a directory in use would hand out the first one's rowids and fail its
 * running tasks. Several hubs on one database are what PostgreSQL is for.
 */
describe("one hub per data directory", () => {
  it("a second hub is refused before it touches the database; the first keeps serving; after it stops (gracefully, then SIGKILL) a new one starts", { timeout: 90_000 }, async () => {
    dataDir = tempDataDir();
    const first = await spawnServer(dataDir);
    const client = first.client("grpc");
    const done = taskOf(await client.sendMessage(textRequest("done before")));
    const asked = taskOf(await client.sendMessage(textRequest("input-required")));
    const slow = taskOf(await client.sendMessage(textRequest("slow 60000", { configuration: { returnImmediately: true } })));
    expect(asked.status?.state).toBe(TaskState.INPUT_REQUIRED);
    expect(JSON.parse(readFileSync(lockFile(dataDir), "utf8"))).toMatchObject({ pid: first.pid });

    const refused = await spawnServer(dataDir).then(
      () => undefined,
      (e: unknown) => String(e),
    );
    expect(refused, "the second hub started").toBeDefined();
    expect(refused).toMatch(/exited \(1\) before listening/);
    expect(refused).toContain(`data directory ${dataDir} is in use by another hub (pid ${first.pid},`);
    expect(refused).toMatch(/another directory \(--data DIR\)/);
    expect(refused).toMatch(/PostgreSQL/);

    // Its start-up recovery never ran: the first hub's in-flight tasks go on, on the first hub.
    expect((await client.getTask({ id: slow.id })).status?.state).toBe(TaskState.WORKING);
    const answered = taskOf(await client.sendMessage(textRequest("the answer", { taskId: asked.id, contextId: asked.contextId })));
    expect(answered.status?.state).toBe(TaskState.COMPLETED);
    expect(answered.history.map((m) => textOf(m))).toContain("the answer");
    expect(taskOf(await first.client("connect").sendMessage(textRequest("after the refusal"))).status?.state).toBe(TaskState.COMPLETED);
    expect(first.stderr()).not.toMatch(/"level":"error"/);
    readHubDb(dataDir, (db) => expect(db.states().get(slow.id)).toBe(TaskState.WORKING));

    // A graceful stop removes the lock; the next hub fails what the first left running.
    first.signal("SIGTERM");
    expect((await first.waitExit(20_000)).code).toBe(0);
    expect(existsSync(lockFile(dataDir))).toBe(false);
    const second = await spawnServer(dataDir);
    expect((await second.client("connect").getTask({ id: slow.id })).status?.state).toBe(TaskState.FAILED);
    expect((await second.client("connect").getTask({ id: done.id })).status?.state).toBe(TaskState.COMPLETED);

    // A SIGKILL leaves the lock behind, naming a process that is gone: taken over.
    second.signal("SIGKILL");
    await second.waitExit(5_000);
    expect(JSON.parse(readFileSync(lockFile(dataDir), "utf8"))).toMatchObject({ pid: second.pid });
    const third = await spawnServer(dataDir);
    expect(JSON.parse(readFileSync(lockFile(dataDir), "utf8"))).toMatchObject({ pid: third.pid });
    expect((await third.client("grpc").getTask({ id: answered.id })).status?.state).toBe(TaskState.COMPLETED);
    await third.kill();
  });

  it("startHub in one process: a second hub on the directory is refused with DataDirLockedError, and starts once the first closed", async () => {
    dataDir = tempDataDir();
    const first = await startHub({ port: 0, dataDir, logger: silentLogger });
    hubs.push(first);
    const error = await startHub({ port: 0, dataDir, logger: silentLogger }).then(
      (h) => (hubs.push(h), undefined),
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DataDirLockedError);
    expect(error).toMatchObject({ dataDir, holder: { pid: process.pid } });
    await first.close();
    hubs.splice(hubs.indexOf(first), 1);
    expect(existsSync(lockFile(dataDir))).toBe(false);
    const second = await startHub({ port: 0, dataDir, logger: silentLogger });
    hubs.push(second);
    expect(existsSync(lockFile(dataDir))).toBe(true);
  });

  it("a lock no live hub holds is taken over: our own pid from an earlier run (a restarted container), or no holder at all; a live process's is not", async () => {
    dataDir = tempDataDir();
    const dir = dataDir;
    const start = async (): Promise<Hub> => {
      const h = await startHub({ port: 0, dataDir: dir, logger: silentLogger });
      hubs.push(h);
      return h;
    };
    writeFileSync(lockFile(dir), JSON.stringify({ pid: process.pid, since: "2020-01-01T00:00:00.000Z" }));
    await (await start()).close();
    writeFileSync(lockFile(dir), "not a lock");
    await (await start()).close();
    // The parent of this test process is alive: its lock is kept, and named.
    writeFileSync(lockFile(dir), JSON.stringify({ pid: process.ppid, since: "2020-01-01T00:00:00.000Z" }));
    await expect(start()).rejects.toThrow(`in use by another hub (pid ${process.ppid}, since 2020-01-01T00:00:00.000Z`);
    expect(JSON.parse(readFileSync(lockFile(dir), "utf8"))).toEqual({ pid: process.ppid, since: "2020-01-01T00:00:00.000Z" });
  });
});
