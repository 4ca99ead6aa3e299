import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { TaskState } from "../../gen/a2a/v1/a2a_pb.js";
import { BINDINGS, expectRefusal, withHubClient } from "../helpers/hub-clients.js";
import { taskOf, textRequest } from "../helpers/messages.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";

/** §3.1.5 CancelTask, the same rules on every binding. */

let t: TestHub;
beforeAll(async () => {
  t = await startTestHub();
});
afterAll(async () => {
  await t.stop();
});

describe.each(BINDINGS)("CancelTask over %s (§3.1.5)", (binding) => {
  const open = withHubClient(() => t, binding);

  it("ends a working task CANCELED, GetTask then reads it CANCELED, and a second cancel returns it", async () => {
    const client = open.client;
    const started = taskOf(await client.send(textRequest("slow 10000", { configuration: { returnImmediately: true } })));
    const canceled = await client.cancel(started.id);
    expect(canceled.status?.state).toBe(TaskState.CANCELED);
    expect((await client.get(started.id)).status?.state).toBe(TaskState.CANCELED);
    expect((await client.cancel(started.id)).status?.state).toBe(TaskState.CANCELED);
  });

  it("cancels an interrupted (input-required) task", async () => {
    const client = open.client;
    const parked = taskOf(await client.send(textRequest("input-required")));
    expect(parked.status?.state).toBe(TaskState.INPUT_REQUIRED);
    expect((await client.cancel(parked.id)).status?.state).toBe(TaskState.CANCELED);
  });

  it("a blocked SendMessage returns the CANCELED task", async () => {
    const client = open.client;
    const contextId = `cancel-${binding}-${randomUUID()}`;
    const pending = client.send(textRequest("slow 10000", { contextId }));
    let id = "";
    for (let i = 0; i < 250 && !id; i++) {
      await new Promise((r) => setTimeout(r, 20));
      id = (await client.list({ contextId })).tasks[0]?.id ?? "";
    }
    await client.cancel(id);
    expect(taskOf(await pending).status?.state).toBe(TaskState.CANCELED);
  });

  it("of a terminal task is TaskNotCancelable, of an unknown one TaskNotFound", async () => {
    const client = open.client;
    const done = taskOf(await client.send(textRequest("x")));
    await expectRefusal(client, () => client.cancel(done.id), "TaskNotCancelable");
    await expectRefusal(client, () => client.cancel("nope"), "TaskNotFound");
  });
});
