import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code } from "@connectrpc/connect";
import { timestampDate, timestampFromMs } from "@bufbuild/protobuf/wkt";
import { TaskState } from "../../gen/a2a/v1/a2a_pb.js";
import { startTestHub, withTestHub, type TestHub } from "../helpers/test-hub.js";
import { taskOf, textRequest } from "../helpers/messages.js";
import { expectA2AError, violatedFields } from "../helpers/errors.js";

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

describe("ListTasks (§3.1.4)", () => {
  // A hub of its own: the totals above count every task of theirs.
  const own = withTestHub();
  const client = () => own.hub.client("connect-h1");

  it("filters by context, newest first, with artifacts only when asked", async () => {
    const contextId = `list-${Date.now()}`;
    const ids: string[] = [];
    for (const text of ["a", "b", "c"]) ids.push(taskOf(await client().sendMessage(textRequest(text, { contextId }))).id);
    const res = await client().listTasks({ contextId });
    expect(res.tasks.map((x) => x.id)).toEqual([...ids].reverse());
    expect(res.totalSize).toBe(3);
    expect(res.pageSize).toBe(50);
    expect(res.nextPageToken).toBe("");
    expect(res.tasks.every((x) => x.artifacts.length === 0)).toBe(true);
    const withArtifacts = await client().listTasks({ contextId, includeArtifacts: true });
    expect(withArtifacts.tasks.every((x) => x.artifacts.length === 1)).toBe(true);
    const stamps = res.tasks.map((x) => timestampDate(x.status!.timestamp!).getTime());
    expect([...stamps].sort((p, q) => q - p)).toEqual(stamps);
  });

  it("filters by status and by statusTimestampAfter", async () => {
    const contextId = `status-${Date.now()}`;
    await client().sendMessage(textRequest("x", { contextId }));
    const failed = taskOf(await client().sendMessage(textRequest("fail", { contextId })));
    const onlyFailed = await client().listTasks({ contextId, status: TaskState.FAILED });
    expect(onlyFailed.tasks.map((x) => x.id)).toEqual([failed.id]);
    const future = await client().listTasks({ contextId, statusTimestampAfter: timestampFromMs(Date.now() + 60_000) });
    expect(future.tasks).toEqual([]);
    expect(future.totalSize).toBe(0);
  });

  it("pages with keyset tokens that visit every task once, even when timestamps tie", async () => {
    const contextId = `pages-${Date.now()}`;
    const sent = new Set<string>();
    // Concurrent sends share milliseconds; the keyset must still be exact.
    const batch = await Promise.all(Array.from({ length: 25 }, (_, i) => client().sendMessage(textRequest(`p${i}`, { contextId }))));
    for (const r of batch) sent.add(taskOf(r).id);
    const seen: string[] = [];
    let token = "";
    let pages = 0;
    do {
      const page = await client().listTasks({ contextId, pageSize: 4, pageToken: token });
      expect(page.pageSize).toBe(4);
      expect(page.totalSize).toBe(25);
      seen.push(...page.tasks.map((x) => x.id));
      token = page.nextPageToken;
      pages++;
    } while (token !== "" && pages < 20);
    expect(pages).toBe(7);
    expect(seen).toHaveLength(25);
    expect(new Set(seen)).toEqual(sent);
  });

  const bad: Array<[string, Record<string, unknown>, string]> = [
    ["pageSize 0", { pageSize: 0 }, "pageSize"],
    ["pageSize 101", { pageSize: 101 }, "pageSize"],
    ["a negative historyLength", { historyLength: -1 }, "historyLength"],
    ["an unknown status", { status: 42 }, "status"],
    ["an unparsable page token", { pageToken: "%%%not-a-token" }, "pageToken"],
    ["a page token of another query", { pageToken: Buffer.from("v1:1:1:someoneelse").toString("base64url") }, "pageToken"],
  ];
  it.each(bad)("%s is InvalidParams naming the field", async (_n, req, field) => {
    const err = await expectA2AError(() => client().listTasks(req), Code.InvalidArgument, "INVALID_PARAMS");
    expect(violatedFields(err)).toEqual([field]);
  });

  it("accepts pageSize 1 and 100", async () => {
    expect((await client().listTasks({ pageSize: 1 })).pageSize).toBe(1);
    expect((await client().listTasks({ pageSize: 100 })).pageSize).toBe(100);
  });
});
