import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TaskState } from "../../gen/a2a/v1/a2a_pb.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";
import { taskOf, textRequest } from "../helpers/messages.js";

let t: TestHub;
beforeAll(async () => {
  t = await startTestHub();
});
afterAll(async () => {
  await t.stop();
});

describe("ListTasks totalSize without a context filter (kept by counters)", () => {
  it("counts every task and every state, and follows state changes", async () => {
    const client = t.client("grpc");
    for (let i = 0; i < 3; i++) await client.sendMessage(textRequest(`done ${i}`));
    const parked = [taskOf(await client.sendMessage(textRequest("input-required"))), taskOf(await client.sendMessage(textRequest("input-required")))];
    await client.sendMessage(textRequest("fail"));
    const total = async (status?: TaskState) => (await client.listTasks(status === undefined ? {} : { status })).totalSize;
    expect(await total()).toBe(6);
    expect(await total(TaskState.COMPLETED)).toBe(3);
    expect(await total(TaskState.INPUT_REQUIRED)).toBe(2);
    expect(await total(TaskState.FAILED)).toBe(1);
    await client.cancelTask({ id: parked[0]!.id });
    await client.sendMessage(textRequest("answer", { taskId: parked[1]!.id }));
    expect(await total(TaskState.INPUT_REQUIRED)).toBe(0);
    expect(await total(TaskState.CANCELED)).toBe(1);
    expect(await total(TaskState.COMPLETED)).toBe(4);
    expect(await total(TaskState.WORKING)).toBe(0);
    expect(await total()).toBe(6);
  });
});
