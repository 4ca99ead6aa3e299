import { afterAll, describe, expect, it } from "vitest";
import { hashToken } from "../../src/auth/index.js";
import { BIN, startServing } from "../helpers/cli-process.js";
import { configFiles } from "../helpers/config-files.js";
import { sseMessages } from "../helpers/sse.js";
import { HUB_AUDIENCE, TestIdp } from "../helpers/test-idp.js";
import { until } from "../helpers/until.js";

/** SIGHUP reloads tenants, static tokens and JWT issuers without dropping open streams. */
const files = configFiles("a2a-hub-reload-");
afterAll(() => files.remove());

const OLD = "acme-token-to-remove";
const NEW = "acme-token-added-by-reload";

describe("reload on SIGHUP", () => {
  it("a token added and one removed during a stream: the stream survives, the removed token is refused on its next call, a bad config is refused and the old one stays", async () => {
    const idp = await TestIdp.start([{ id: "acme-bot", secret: "acme-secret", org: "acme" }]);
    const config = files.write("hub.json", JSON.stringify({ tenants: [{ id: "acme", tokens: [hashToken(OLD)] }] }));
    const hub = await startServing([BIN, "serve", "--config", config, "--port", "0", "--data", files.dir + "/data"]);
    const base = hub.url.replace(/\/$/, "");
    const as = (token: string) => ({ authorization: `Bearer ${token}`, "content-type": "application/json" });
    try {
      // A task that waits for input, and a subscription to it that stays open until it ends.
      const sent = await fetch(`${base}/message:send`, {
        method: "POST",
        headers: as(OLD),
        body: JSON.stringify({ message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "input-required" }] } }),
      });
      const taskId = ((await sent.json()) as any).task.id as string;
      const stream = await fetch(`${base}/tasks/${taskId}:subscribe`, { headers: { ...as(OLD), accept: "text/event-stream" } });
      expect(stream.status).toBe(200);
      const events = sseMessages(stream.body!);
      expect((await events.next()).value!.data.task.id).toBe(taskId);

      // The new configuration: the old token gone, a new one and an identity provider in.
      files.write(
        "hub.json",
        JSON.stringify({ auth: { jwt: [{ issuer: idp.issuer, audience: HUB_AUDIENCE, tenantClaim: "org" }] }, tenants: [{ id: "acme", tokens: [hashToken(NEW)] }] }),
      );
      hub.signal("SIGHUP");
      await until("the hub says it reloaded", async () => hub.stderr().includes("access settings reloaded"));

      expect((await fetch(`${base}/tasks/${taskId}`, { headers: as(OLD) })).status).toBe(401);
      expect((await fetch(`${base}/tasks/${taskId}`, { headers: as(NEW) })).status).toBe(200);
      expect((await fetch(`${base}/tasks/${taskId}`, { headers: as(await idp.token("acme-bot")) })).status).toBe(200);

      // A configuration with a problem: refused with the reason; the one in force stays.
      files.write("hub.json", JSON.stringify({ tenants: [{ id: "acme", tokens: ["not-a-hash"] }] }));
      hub.signal("SIGHUP");
      await until("the hub says it refused the reload", async () => hub.stderr().includes("reload refused"));
      expect(hub.stderr()).toMatch(/reload refused, the settings in force stay: .*tenants\[0\]\.tokens\[0\]/);
      expect((await fetch(`${base}/tasks/${taskId}`, { headers: as(NEW) })).status).toBe(200);

      // The stream opened with the removed token is still there: it sees the task end.
      const reply = await fetch(`${base}/message:send`, {
        method: "POST",
        headers: as(NEW),
        body: JSON.stringify({ message: { messageId: crypto.randomUUID(), role: "ROLE_USER", taskId, parts: [{ text: "done" }] } }),
      });
      expect(reply.status).toBe(200);
      const states: string[] = [];
      for await (const e of events) {
        if (e.data?.statusUpdate) states.push(e.data.statusUpdate.status.state);
      }
      expect(states.at(-1)).toBe("TASK_STATE_COMPLETED");
    } finally {
      await hub.stop();
      await idp.stop();
    }
  });
});
