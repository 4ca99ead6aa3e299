import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toBinary } from "@bufbuild/protobuf";
import { TaskSchema, TaskState, type Task } from "../../gen/a2a/v1/a2a_pb.js";
import { PUSH_DELIVERY_STATE_URI } from "../../src/core/index.js";
import { taskOf, textRequest } from "../helpers/messages.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";
import { startReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.js";

interface Entry {
  configId: string;
  url: string;
  pending: number;
  dead: number;
  delivered: number;
  lastAttemptAt?: string;
  lastError?: string;
  nextAttemptAt?: string;
}

const ACTIVATE = { headers: { "a2a-extensions": PUSH_DELIVERY_STATE_URI } };

describe("the push-delivery-state extension (§4.6)", () => {
  let t: TestHub;
  let ok: WebhookReceiver;
  let failing: WebhookReceiver;
  let task: Task;

  beforeAll(async () => {
    ok = await startReceiver();
    failing = await startReceiver();
    failing.respond = () => 500;
    t = await startTestHub({ push: { allowCidrs: ["127.0.0.1/32"], retry: { baseMs: 20, capMs: 50, attempts: 2 } } });
    const client = t.client("connect-h1");
    // An input-required task takes both configs before anything is owed to them.
    task = taskOf(await client.sendMessage(textRequest("input-required")));
    await client.createTaskPushNotificationConfig({ taskId: task.id, id: "good", url: ok.url });
    await client.createTaskPushNotificationConfig({ taskId: task.id, id: "bad", url: failing.url });
    await client.sendMessage(textRequest("stream 2", { taskId: task.id, contextId: task.contextId }));
  });
  afterAll(async () => {
    await t?.stop();
    await ok?.close();
    await failing?.close();
  });

  const stateOf = async (): Promise<Entry[]> => {
    const got = await t.client("connect-h1").getTask({ id: task.id }, ACTIVATE);
    return got.metadata?.[PUSH_DELIVERY_STATE_URI] as unknown as Entry[];
  };

  /** Polls until every delivery is settled: delivered to the good receiver, given up on the bad one. */
  async function settled(): Promise<Entry[]> {
    const until = Date.now() + 15_000;
    for (;;) {
      const s = await stateOf();
      const good = s.find((e) => e.configId === "good")!;
      const bad = s.find((e) => e.configId === "bad")!;
      const finished = (await t.client("connect-h1").getTask({ id: task.id })).status?.state === TaskState.COMPLETED;
      if (finished && good.pending === 0 && good.delivered > 0 && bad.pending === 0 && bad.dead === good.delivered) return s;
      if (Date.now() > until) throw new Error(`deliveries never settled: ${JSON.stringify(s)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it("is declared in the card of an agent that supports push", async () => {
    const card = await (await fetch(new URL(".well-known/agent-card.json", t.url), { headers: { "a2a-version": "1.0" } })).json();
    expect(card.capabilities.pushNotifications).toBe(true);
    expect(card.capabilities.extensions).toContainEqual(expect.objectContaining({ uri: PUSH_DELIVERY_STATE_URI }));
  });

  it("GetTask with the extension carries one entry per config: delivered counts, dead ones and the last error", async () => {
    const entries = await settled();
    expect(entries.map((e) => e.configId)).toEqual(["good", "bad"]);
    const [good, bad] = entries as [Entry, Entry];
    expect(good).toMatchObject({ url: ok.url, pending: 0, dead: 0, delivered: ok.received.length });
    expect(good.lastError).toBeUndefined();
    expect(good.nextAttemptAt).toBeUndefined();
    expect(Date.parse(good.lastAttemptAt!)).toBeGreaterThan(Date.now() - 60_000);
    expect(bad).toMatchObject({ url: failing.url, pending: 0, delivered: 0 });
    expect(bad.dead).toBe(good.delivered);
    expect(bad.lastError).toMatch(/500/);
    expect(Date.parse(bad.lastAttemptAt!)).toBeGreaterThan(Date.now() - 60_000);
  });

  it("reports a delivery still being retried as pending, with its next attempt", async () => {
    // A fresh task whose webhook fails slowly: its first delivery waits for a retry.
    const slow = await startReceiver();
    slow.respond = () => 500;
    const hub = await startTestHub({ push: { allowCidrs: ["127.0.0.1/32"], retry: { baseMs: 60_000, capMs: 60_000, attempts: 3 } } });
    try {
      const client = hub.client("connect-h1");
      const tk = taskOf(await client.sendMessage(textRequest("input-required")));
      await client.createTaskPushNotificationConfig({ taskId: tk.id, id: "later", url: slow.url });
      await client.sendMessage(textRequest("done", { taskId: tk.id, contextId: tk.contextId }));
      const until = Date.now() + 10_000;
      let e: Entry | undefined;
      while (Date.now() < until) {
        e = ((await client.getTask({ id: tk.id }, ACTIVATE)).metadata?.[PUSH_DELIVERY_STATE_URI] as unknown as Entry[])[0];
        if (e?.lastError) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(e).toMatchObject({ configId: "later", delivered: 0, dead: 0 });
      expect(e!.pending).toBeGreaterThan(0);
      expect(e!.lastError).toMatch(/500/);
      // The first delivery waits for its retry, the ones behind it for the first.
      expect(Date.parse(e!.nextAttemptAt!)).toBeGreaterThan(Date.parse(e!.lastAttemptAt!));
    } finally {
      await hub.stop();
      await slow.close();
    }
  });

  it("without the extension the Task is the one GetTask always answered: no metadata key", async () => {
    await settled();
    const plain = await t.client("connect-h1").getTask({ id: task.id });
    expect(plain.metadata?.[PUSH_DELIVERY_STATE_URI]).toBeUndefined();
    const withIt = await t.client("connect-h1").getTask({ id: task.id }, ACTIVATE);
    delete withIt.metadata![PUSH_DELIVERY_STATE_URI];
    if (Object.keys(withIt.metadata!).length === 0) withIt.metadata = plain.metadata;
    expect(toBinary(TaskSchema, withIt)).toEqual(toBinary(TaskSchema, plain));
    // REST: byte-identical bodies without the header, the extension echoed with it.
    const url = new URL(`tasks/${task.id}`, t.url);
    const [a, b] = await Promise.all([fetch(url, { headers: { "a2a-version": "1.0" } }), fetch(url, { headers: { "a2a-version": "1.0" } })]);
    expect(await a.text()).toBe(await b.text());
    expect(a.headers.get("a2a-extensions")).toBeNull();
    const rest = await fetch(url, { headers: { "a2a-version": "1.0", "a2a-extensions": PUSH_DELIVERY_STATE_URI } });
    expect(rest.headers.get("a2a-extensions")).toBe(PUSH_DELIVERY_STATE_URI);
    expect((await rest.json()).metadata[PUSH_DELIVERY_STATE_URI]).toHaveLength(2);
  });
});
