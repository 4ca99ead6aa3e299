import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectStatusError, rest, sendText, violatedFields } from "../../helpers/rest.js";
import { startTestHub, type TestHub } from "../../helpers/test-hub.js";

let t: TestHub;
beforeAll(async () => {
  t = await startTestHub();
});
afterAll(async () => {
  await t.stop();
});

/** Three completed tasks and one working one in a fresh context. */
async function context(): Promise<{ contextId: string; done: any[]; working: any }> {
  const first = await sendText(t.url, "one");
  const contextId = first.contextId as string;
  const done = [first, await sendText(t.url, "two", { message: { contextId } }), await sendText(t.url, "three", { message: { contextId } })];
  const working = await sendText(t.url, "slow 3000", { message: { contextId }, configuration: { returnImmediately: true } });
  return { contextId, done, working };
}

/** Expects 400 InvalidParams whose BadRequest names exactly `parameter`. */
async function expectBadParameter(path: string, parameter: string): Promise<void> {
  const r = await rest(t.url, "GET", path);
  expectStatusError(r, 400, "INVALID_ARGUMENT");
  expect(violatedFields(r), path).toEqual([parameter]);
  expect(r.json.error.message).toContain(parameter);
}

describe("GET /tasks/{id}?historyLength (§11.5, §3.2.4)", () => {
  it("trims the history to the most recent messages", async () => {
    const task = await sendText(t.url, "input-required");
    await sendText(t.url, "follow-up", { message: { taskId: task.id } });
    expect((await rest(t.url, "GET", `/tasks/${task.id}`)).json.history.length).toBeGreaterThanOrEqual(2);
    expect((await rest(t.url, "GET", `/tasks/${task.id}?historyLength=0`)).json.history).toBeUndefined();
    const one = (await rest(t.url, "GET", `/tasks/${task.id}?historyLength=1`)).json.history;
    expect(one).toHaveLength(1);
    expect(one[0].parts).toEqual([{ text: "follow-up" }]);
  });

  it("refuses a value that is not a non-negative integer, naming historyLength", async () => {
    const task = await sendText(t.url, "x");
    for (const v of ["-1", "abc", "1.5", "1e3"]) await expectBadParameter(`/tasks/${task.id}?historyLength=${v}`, "historyLength");
  });
});

describe("GET /tasks query parameters (§11.5, §3.1.4)", () => {
  it("contextId filters to one context, newest first", async () => {
    const c = await context();
    const r = await rest(t.url, "GET", `/tasks?contextId=${c.contextId}`);
    expect(r.json.tasks.map((x: any) => x.id)).toEqual([c.working.id, ...c.done.map((x) => x.id).reverse()]);
    expect(r.json.totalSize).toBe(4);
  });

  it("pageSize and pageToken walk the list page by page", async () => {
    const c = await context();
    const seen: string[] = [];
    let token = "";
    do {
      const r = await rest(t.url, "GET", `/tasks?contextId=${c.contextId}&pageSize=3${token ? `&pageToken=${encodeURIComponent(token)}` : ""}`);
      expect(r.status, r.text).toBe(200);
      expect(r.json.pageSize).toBe(3);
      seen.push(...r.json.tasks.map((x: any) => x.id));
      token = r.json.nextPageToken;
    } while (token);
    expect(seen).toHaveLength(4);
    expect(new Set(seen).size).toBe(4);
  });

  it("status filters by state, by enum name and in the lenient spellings", async () => {
    const c = await context();
    for (const status of ["TASK_STATE_COMPLETED", "completed"]) {
      const r = await rest(t.url, "GET", `/tasks?contextId=${c.contextId}&status=${status}`);
      expect(r.json.tasks.map((x: any) => x.status.state)).toEqual(["TASK_STATE_COMPLETED", "TASK_STATE_COMPLETED", "TASK_STATE_COMPLETED"]);
    }
    const working = await rest(t.url, "GET", `/tasks?contextId=${c.contextId}&status=TASK_STATE_WORKING`);
    expect(working.json.tasks.map((x: any) => x.id)).toEqual([c.working.id]);
  });

  it("statusTimestampAfter takes an ISO 8601 timestamp", async () => {
    const c = await context();
    const past = await rest(t.url, "GET", `/tasks?contextId=${c.contextId}&statusTimestampAfter=2000-01-01T00:00:00Z`);
    expect(past.json.tasks).toHaveLength(4);
    const future = new Date(Date.now() + 60_000).toISOString();
    const none = await rest(t.url, "GET", `/tasks?contextId=${c.contextId}&statusTimestampAfter=${encodeURIComponent(future)}`);
    expect(none.json).toMatchObject({ tasks: [], totalSize: 0 });
  });

  it("includeArtifacts=true adds artifacts, which are absent otherwise", async () => {
    const c = await context();
    const without = await rest(t.url, "GET", `/tasks?contextId=${c.contextId}&status=TASK_STATE_COMPLETED`);
    expect(without.json.tasks.every((x: any) => x.artifacts === undefined)).toBe(true);
    const withArtifacts = await rest(t.url, "GET", `/tasks?contextId=${c.contextId}&status=TASK_STATE_COMPLETED&includeArtifacts=true`);
    expect(withArtifacts.json.tasks.every((x: any) => x.artifacts?.[0]?.artifactId === "echo")).toBe(true);
    const no = await rest(t.url, "GET", `/tasks?contextId=${c.contextId}&status=TASK_STATE_COMPLETED&includeArtifacts=false`);
    expect(no.json.tasks.every((x: any) => x.artifacts === undefined)).toBe(true);
  });

  it("historyLength applies to every listed task", async () => {
    const c = await context();
    const r = await rest(t.url, "GET", `/tasks?contextId=${c.contextId}&historyLength=0`);
    expect(r.json.tasks.every((x: any) => x.history === undefined)).toBe(true);
  });

  it("a bad value is 400 naming the parameter", async () => {
    const cases: Array<[string, string]> = [
      ["pageSize=0", "pageSize"],
      ["pageSize=101", "pageSize"],
      ["pageSize=ten", "pageSize"],
      ["pageSize=99999999999", "pageSize"],
      ["pageSize=1&pageSize=2", "pageSize"],
      ["historyLength=-5", "historyLength"],
      ["status=TASK_STATE_RUNNING", "status"],
      ["statusTimestampAfter=yesterday", "statusTimestampAfter"],
      ["includeArtifacts=yes", "includeArtifacts"],
      ["pageToken=not-a-token", "pageToken"],
    ];
    for (const [query, parameter] of cases) await expectBadParameter(`/tasks?${query}`, parameter);
  });

  it("ignores parameters that name no field and counts empty values as absent", async () => {
    const c = await context();
    const r = await rest(t.url, "GET", `/tasks?contextId=${c.contextId}&colour=blue&status=&pageSize=`);
    expect(r.status).toBe(200);
    expect(r.json.tasks).toHaveLength(4);
  });

  it("reads the proto field names too", async () => {
    const c = await context();
    const r = await rest(t.url, "GET", `/tasks?context_id=${c.contextId}&page_size=1`);
    expect(r.json.tasks).toHaveLength(1);
    expect(r.json.totalSize).toBe(4);
  });
});

describe("GET /tasks/{id}/pushNotificationConfigs query parameters", () => {
  it("accepts pageSize and pageToken and refuses a negative pageSize", async () => {
    const task = await sendText(t.url, "input-required");
    const ok = await rest(t.url, "GET", `/tasks/${task.id}/pushNotificationConfigs?pageSize=10`);
    expect(ok.json).toEqual({ configs: [] });
    await expectBadParameter(`/tasks/${task.id}/pushNotificationConfigs?pageSize=-1`, "pageSize");
  });
});
