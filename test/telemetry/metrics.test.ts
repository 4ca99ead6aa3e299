import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { hashToken } from "../../src/auth/index.js";
import { hubClient, type HubClient } from "../helpers/hub-clients.js";
import { textRequest, taskOf } from "../helpers/messages.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";
import { startReceiver } from "../helpers/webhook-receiver.js";

const hubs: TestHub[] = [];
const open: HubClient[] = [];
afterEach(async () => {
  for (const c of open.splice(0)) c.close();
  await Promise.all(hubs.splice(0).map((h) => h.stop()));
});

async function hub(options: Parameters<typeof startTestHub>[0] = {}): Promise<TestHub> {
  const t = await startTestHub(options);
  hubs.push(t);
  return t;
}

async function scrape(url: string, token?: string): Promise<{ status: number; text: string; type: string | null }> {
  const res = await fetch(`${url}metrics`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  return { status: res.status, text: await res.text(), type: res.headers.get("content-type") };
}

/** The value of one series, labels given in any order; undefined when absent. */
function value(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split("\n")) {
    if (!line.startsWith(name)) continue;
    const m = /^([a-zA-Z0-9_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries([...(m[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(m[3]);
  }
  return undefined;
}

/** A client of `t` over gRPC, Connect, JSON-RPC and REST, closed after the test. */
async function clients(t: TestHub): Promise<HubClient[]> {
  const all = await Promise.all((["grpc", "connect-h1", "jsonrpc", "rest"] as const).map((b) => hubClient(t.url, b)));
  open.push(...all);
  return all;
}

describe("Prometheus metrics", () => {
  it("counts requests by binding, method, agent and outcome, and never names a task", async () => {
    const t = await hub();
    const taskIds: string[] = [];
    for (const c of await clients(t)) {
      taskIds.push(taskOf(await c.send(textRequest("hello"))).id);
      await expect(c.get("no-such-task")).rejects.toThrow();
    }
    const { status, text, type } = await scrape(t.url);
    expect(status).toBe(200);
    expect(type).toMatch(/^text\/plain; version=0\.0\.4/);
    for (const binding of ["grpc", "connect", "jsonrpc", "rest"]) {
      expect(value(text, "a2a_requests_total", { binding, method: "SendMessage", agent: "echo", outcome: "ok" }), binding).toBe(1);
      expect(value(text, "a2a_requests_total", { binding, method: "GetTask", agent: "echo", outcome: "TaskNotFound" }), binding).toBe(1);
      expect(value(text, "a2a_request_duration_seconds_count", { binding, method: "SendMessage", outcome: "ok" }), binding).toBe(1);
    }
    expect(value(text, "a2a_tasks_created_total", { agent: "echo" })).toBe(4);
    expect(value(text, "a2a_tasks_terminal_total", { agent: "echo", state: "completed" })).toBe(4);
    expect(value(text, "a2a_store_unit_of_work_seconds_count")).toBeGreaterThanOrEqual(4);
    expect(value(text, "a2a_store_unit_of_work_writes_sum")).toBeGreaterThanOrEqual(8);
    expect(value(text, "a2a_runs_in_flight")).toBe(0);
    expect(value(text, "a2a_open_connections", { protocol: "h2c" })).toBeGreaterThanOrEqual(1);
    // prom-client's default process metrics.
    expect(value(text, "process_resident_memory_bytes")).toBeGreaterThan(0);
    expect(value(text, "nodejs_eventloop_lag_seconds")).toBeGreaterThanOrEqual(0);
    const busy = value(text, "nodejs_eventloop_utilization_ratio");
    expect(busy).toBeGreaterThan(0);
    expect(busy).toBeLessThanOrEqual(1);
    expect(text).not.toMatch(/tenant="/);
    for (const id of taskIds) expect(text).not.toContain(id);
  });

  it("counts streams, their events and the time to the first event per binding", async () => {
    const t = await hub();
    for (const c of await clients(t)) {
      let n = 0;
      for await (const _ of c.stream(textRequest("stream 2"))) n++;
      expect(n).toBeGreaterThan(1);
    }
    const { text } = await scrape(t.url);
    for (const binding of ["grpc", "connect", "jsonrpc", "rest"]) {
      expect(value(text, "a2a_stream_events_total", { binding }), binding).toBeGreaterThan(1);
      expect(value(text, "a2a_stream_first_event_seconds_count", { binding, method: "SendStreamingMessage" }), binding).toBe(1);
      expect(value(text, "a2a_streams_open", { binding }), binding).toBe(0);
      expect(value(text, "a2a_requests_total", { binding, method: "SendStreamingMessage", outcome: "ok" }), binding).toBe(1);
    }
  });

  it("shows runs in flight, open streams, subscribers and the stream queues while a stream is open", async () => {
    const t = await hub();
    const stream = t.client("grpc").sendStreamingMessage(textRequest("slow 3000"))[Symbol.asyncIterator]();
    await stream.next();
    const during = (await scrape(t.url)).text;
    expect(value(during, "a2a_runs_in_flight")).toBe(1);
    expect(value(during, "a2a_streams_open", { binding: "grpc" })).toBe(1);
    expect(value(during, "a2a_subscribers")).toBeGreaterThanOrEqual(1);
    expect(value(during, "a2a_stream_queue_depth", { of: "sum" })).toBeGreaterThanOrEqual(0);
    expect(value(during, "a2a_stream_queue_depth", { of: "max" })).toBeGreaterThanOrEqual(0);
    await stream.return?.();
    let after = "";
    // The server sees the client's cancel a little later; a loaded machine may take seconds.
    for (let i = 0; i < 200; i++) {
      after = (await scrape(t.url)).text;
      if (value(after, "a2a_streams_open", { binding: "grpc" }) === 0 && value(after, "a2a_subscribers") === 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(value(after, "a2a_streams_open", { binding: "grpc" })).toBe(0);
    expect(value(after, "a2a_subscribers")).toBe(0);
  });

  it("counts push deliveries and webhook latency, and the outbox drains to zero", async () => {
    const receiver = await startReceiver();
    try {
      const t = await hub({ push: { allowCidrs: ["127.0.0.1/32"] } });
      await t.client("grpc").sendMessage(textRequest("hello", { configuration: { taskPushNotificationConfig: { url: receiver.url } } }));
      await receiver.waitFor(1);
      let text = "";
      for (let i = 0; i < 50; i++) {
        text = (await scrape(t.url)).text;
        if ((value(text, "a2a_push_outbox_pending") ?? 1) === 0) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(value(text, "a2a_push_deliveries_total", { result: "sent" })).toBe(receiver.attempts);
      expect(value(text, "a2a_push_webhook_duration_seconds_count")).toBe(receiver.attempts);
      expect(value(text, "a2a_push_outbox_pending")).toBe(0);
      expect(value(text, "a2a_push_outbox_oldest_due_seconds")).toBe(0);
    } finally {
      await receiver.close();
    }
  });

  it("with tenants, /metrics needs its token and labels series by tenant only when asked", async () => {
    const access = { tenants: [{ tenant: "acme", tokenHashes: [hashToken("acme-token")] }], agentTenants: new Map() };
    const refused = await hub({ access });
    expect((await scrape(refused.url)).status).toBe(403);

    const t = await hub({ access, metrics: { tokenHash: hashToken("scrape-token"), tenantLabel: true } });
    expect((await scrape(t.url)).status).toBe(401);
    // A tenant's A2A token is not the scrape token.
    expect((await scrape(t.url, "acme-token")).status).toBe(401);
    const res = await fetch(`${t.url}message:send`, {
      method: "POST",
      headers: { authorization: "Bearer acme-token", "content-type": "application/json" },
      body: JSON.stringify({ message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hi" }] } }),
    });
    expect(res.status).toBe(200);
    const { status, text } = await scrape(t.url, "scrape-token");
    expect(status).toBe(200);
    expect(value(text, "a2a_requests_total", { binding: "rest", method: "SendMessage", tenant: "acme", outcome: "ok" })).toBe(1);
    expect(value(text, "a2a_tasks_created_total", { agent: "echo", tenant: "acme" })).toBe(1);
  });

  it("serves /metrics on its own port when asked, and not at all when turned off", async () => {
    const t = await hub({ metrics: { port: 0 } });
    expect(t.hub.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(t.hub.metricsUrl).not.toBe(t.url);
    await t.client("grpc").sendMessage(textRequest("hi"));
    const { status, text } = await scrape(t.hub.metricsUrl!);
    expect(status).toBe(200);
    expect(value(text, "a2a_requests_total", { binding: "grpc", method: "SendMessage", outcome: "ok" })).toBe(1);
    expect((await fetch(`${t.hub.metricsUrl}readyz`)).status).toBe(200);
    expect((await fetch(`${t.hub.metricsUrl}tasks`)).status).toBe(404);

    const off = await hub({ metrics: false });
    expect((await scrape(off.url)).status).toBe(404);
  });

  it("the Grafana dashboard under docs/ queries only series the hub exports", async () => {
    const t = await hub();
    await t.client("grpc").sendMessage(textRequest("hi"));
    const { text } = await scrape(t.url);
    const exported = new Set([...text.matchAll(/^# TYPE (\S+) (\w+)$/gm)].map((m) => m[1]));
    const dashboard = JSON.parse(readFileSync("docs/grafana-dashboard.json", "utf8")) as { panels: Array<{ targets: Array<{ expr: string }> }> };
    const exprs = dashboard.panels.flatMap((p) => p.targets.map((x) => x.expr));
    const used = new Set(exprs.flatMap((e) => [...e.matchAll(/\b((?:a2a|process|nodejs)_[a-z0-9_]+)\{/g)].map((m) => m[1]!.replace(/_(bucket|sum|count)$/, ""))));
    expect(used.size).toBeGreaterThanOrEqual(15);
    for (const name of used) expect(exported.has(name), name).toBe(true);
  });
});
