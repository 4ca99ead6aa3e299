import { Code, ConnectError } from "@connectrpc/connect";
import { afterEach, describe, expect, it } from "vitest";
import { TaskState } from "../gen/a2a/v1/a2a_pb.js";
import { readHubDb } from "./helpers/hub-database.js";
import { textOf } from "./helpers/message-text.js";
import { taskOf, textRequest } from "./helpers/messages.js";
import { killAllServers, removeDir, spawnServer, tempDataDir } from "./helpers/server-process.js";

let dataDir: string | undefined;
afterEach(async () => {
  await killAllServers();
  removeDir(dataDir);
  dataDir = undefined;
});

/**
 * Two hubs on one data directory, as test/readme.test.ts runs the quick
 * start's hub and the tenants' hub (A2A_HUB_DATA wins over a config's
 * dataDir). The store holds task rows and the next rowid in memory; what
 * the other hub committed since must not be answered from them, nor
 * collide with them: a new task given a rowid the other hub had already
 * used failed with `UNIQUE constraint failed: history.task_pk, history.idx`
 * and the client got InvalidAgentResponse.
 */
describe("two hubs on one database", () => {
  it("each creates tasks after the other did, and reads and continues what the other wrote", { timeout: 60_000 }, async () => {
    dataDir = tempDataDir();
    const a = await spawnServer(dataDir);
    const b = await spawnServer(dataDir);
    const onA = a.client("connect");
    const onB = b.client("grpc");

    // Alternating creations: each hub's next task comes after the other's last.
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      for (const [hub, client] of [["a", onA], ["b", onB]] as const) {
        const task = taskOf(await client.sendMessage(textRequest(`${hub} ${i}`)));
        expect(task.status?.state, `${hub} ${i}: ${a.stderr()}${b.stderr()}`).toBe(TaskState.COMPLETED);
        expect(task.artifacts.map((x) => x.parts.map((p) => p.content.value))).toEqual([[`${hub} ${i}`]]);
        ids.push(task.id);
      }
    }
    // The engine makes the task again under the next rowid once the first failed, so the answers alone do not show it.
    expect(a.stderr() + b.stderr()).not.toMatch(/UNIQUE|"level":"error"/);

    // A task A holds (read and written there) is continued on B; A then answers what B wrote.
    const asked = taskOf(await onA.sendMessage(textRequest("input-required")));
    expect(asked.status?.state).toBe(TaskState.INPUT_REQUIRED);
    expect((await onA.getTask({ id: asked.id })).status?.state).toBe(TaskState.INPUT_REQUIRED);
    const answered = taskOf(await onB.sendMessage(textRequest("the answer", { taskId: asked.id, contextId: asked.contextId })));
    expect(answered.status?.state, b.stderr()).toBe(TaskState.COMPLETED);
    const seenOnA = await onA.getTask({ id: asked.id });
    expect(seenOnA.status?.state).toBe(TaskState.COMPLETED);
    expect(seenOnA.history.map((m) => textOf(m))).toContain("the answer");
    expect(seenOnA.history.map((m) => textOf(m))).toEqual((await onB.getTask({ id: asked.id })).history.map((m) => textOf(m)));

    // A write on A to a task B has since completed goes by what B wrote: refused, not stored over it.
    const open = taskOf(await onA.sendMessage(textRequest("input-required")));
    expect(open.status?.state).toBe(TaskState.INPUT_REQUIRED);
    expect(taskOf(await onB.sendMessage(textRequest("closed on b", { taskId: open.id, contextId: open.contextId }))).status?.state).toBe(TaskState.COMPLETED);
    const late = await onA.sendMessage(textRequest("too late", { taskId: open.id, contextId: open.contextId })).then(
      () => undefined,
      (e: unknown) => ConnectError.from(e),
    );
    expect(late?.code, late?.message).toBe(Code.Unimplemented);
    expect(late?.message).toMatch(/accepts no further messages/);
    expect((await onA.getTask({ id: open.id })).history.map((m) => textOf(m))).not.toContain("too late");

    expect(a.stderr()).not.toMatch(/UNIQUE|"level":"error"/);
    expect(b.stderr()).not.toMatch(/UNIQUE|"level":"error"/);
    await a.kill();
    await b.kill();
    readHubDb(dataDir, (db) => {
      expect(db.integrity()).toBe("ok");
      expect(db.logProblems()).toEqual([]);
      for (const id of ids) expect(db.states().get(id), id).toBe(TaskState.COMPLETED);
    });
  });
});
