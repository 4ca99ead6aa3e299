import { afterEach, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { Role, TaskState } from "../../gen/a2a/v1/a2a_pb.js";
import { hubDbFile, readHubDb } from "../helpers/hub-database.js";
import { textOf } from "../helpers/message-text.js";
import { taskOf, textRequest } from "../helpers/messages.js";
import { killAllServers, removeDir, spawnServer, tempDataDir } from "../helpers/server-process.js";

let dataDir: string | undefined;
afterEach(async () => {
  await killAllServers();
  removeDir(dataDir);
  dataDir = undefined;
});

describe("durability across a crash", () => {
  it("a SIGKILLed server keeps every finished task intact and fails the ones in flight on restart", async () => {
    dataDir = tempDataDir();
    const first = await spawnServer(dataDir);
    const client = first.client("connect");

    const completed: { id: string; text: string; messageId: string }[] = [];
    for (let i = 0; i < 20; i++) {
      const text = `durable task ${i}: ${"x".repeat(i * 37)} ✓`;
      const req = textRequest(text);
      const task = taskOf(await client.sendMessage(req));
      expect(task.status?.state).toBe(TaskState.COMPLETED);
      completed.push({ id: task.id, text, messageId: req.message!.messageId });
    }
    const slow: string[] = [];
    for (let i = 0; i < 3; i++) {
      const task = taskOf(await client.sendMessage(textRequest("slow 60000", { configuration: { returnImmediately: true } })));
      slow.push(task.id);
    }
    for (const id of slow) {
      expect([TaskState.SUBMITTED, TaskState.WORKING]).toContain((await client.getTask({ id })).status?.state);
    }

    first.signal("SIGKILL");
    expect((await first.waitExit(5_000)).signal).toBe("SIGKILL");
    await first.kill();

    const second = await spawnServer(dataDir);
    const after = second.client("connect");
    for (const c of completed) {
      const task = await after.getTask({ id: c.id });
      expect(task.status?.state, c.text).toBe(TaskState.COMPLETED);
      expect(task.artifacts, c.text).toHaveLength(1);
      expect(task.artifacts[0]!.parts.map((p) => p.content.value)).toEqual([c.text]);
      const user = task.history.find((m) => m.messageId === c.messageId);
      expect(user, `history of ${c.id} has the user message`).toBeDefined();
      expect(user!.role).toBe(Role.USER);
      expect(textOf(user)).toBe(c.text);
    }
    for (const id of slow) {
      const task = await after.getTask({ id });
      expect(task.status?.state, id).toBe(TaskState.FAILED);
      expect(textOf(task.status?.message)).toMatch(/server restarted/i);
    }

    const list = await after.listTasks({ pageSize: 100 });
    expect(list.totalSize).toBe(23);
    expect(new Set(list.tasks.map((t) => t.id))).toEqual(new Set([...completed.map((c) => c.id), ...slow]));

    second.signal("SIGTERM");
    expect(await second.waitExit(10_000)).toEqual({ code: 0, signal: null });

    expect(existsSync(hubDbFile(dataDir))).toBe(true);
    readHubDb(dataDir, (db) => {
      expect(db.integrity()).toBe("ok");
      expect(db.logProblems()).toEqual([]);
    });
  }, 60_000);
});
