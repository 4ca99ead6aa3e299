import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TaskState } from "../../gen/a2a/v1/a2a_pb.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";
import { BINDINGS, expectRefusal, violatedFields, withHubClient } from "../helpers/hub-clients.js";
import { taskOf, textRequest } from "../helpers/messages.js";

let t: TestHub;
beforeAll(async () => {
  t = await startTestHub();
});
afterAll(async () => {
  await t.stop();
});

describe.each(BINDINGS)("GetTask over %s (§3.1.3)", (binding) => {
  const open = withHubClient(() => t, binding);

  it("GetTask returns the stored task; historyLength trims it", async () => {
    const client = open.client;
    const sent = taskOf(await client.send(textRequest("get me")));
    const got = await client.get({ id: sent.id });
    expect(got.id).toBe(sent.id);
    expect(got.status?.state).toBe(TaskState.COMPLETED);
    expect(got.artifacts[0]!.parts[0]!.content.value).toBe("get me");
    expect((await client.get({ id: sent.id, historyLength: 0 })).history).toEqual([]);
    expect((await client.get({ id: sent.id, historyLength: 1 })).history).toHaveLength(1);
  });

  it("GetTask of an unknown id is TaskNotFound; a negative historyLength is InvalidParams", async () => {
    const client = open.client;
    await expectRefusal(client, () => client.get({ id: "nope" }), "TaskNotFound");
    const sent = taskOf(await client.send(textRequest("x")));
    const err = await expectRefusal(client, () => client.get({ id: sent.id, historyLength: -1 }), "InvalidParams");
    expect(violatedFields(err)).toEqual(["historyLength"]);
  });
});
