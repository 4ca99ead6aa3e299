import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect } from "node:http2";
import { create } from "@bufbuild/protobuf";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { AgentCardSchema, TaskState, type AgentCard } from "../../gen/a2a/v1/a2a_pb.js";
import { EchoAgent, echoCard } from "../../src/agents/index.js";
import { hashToken } from "../../src/auth/index.js";
import { callAndCancel, connectMcp, structured, texts, usingMcp } from "../helpers/mcp-client.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";
import { until } from "../helpers/until.js";

/** What /mcp does with bad or unusual requests, and the options that shape its tools. */

const INIT = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } } };
const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

/** An echo agent whose card declares no streaming and no skills. */
function withoutStreaming(): AgentCard {
  const card = create(AgentCardSchema, { ...echoCard(), name: "no streams", skills: [] });
  card.capabilities!.streaming = false;
  return card;
}

let t: TestHub;
beforeAll(async () => {
  t = await startTestHub({
    maxBodyBytes: 4096,
    mcp: { tools: "skill" },
    agents: [
      { id: "echo", executor: new EchoAgent(), card: echoCard() },
      { id: "plain", executor: new EchoAgent(), card: withoutStreaming() },
    ],
  });
});
afterAll(async () => {
  await t?.stop();
});

const post = (body: string, headers: Record<string, string> = {}) => fetch(new URL("mcp", t.url), { method: "POST", headers: { ...HEADERS, ...headers }, body });

describe("/mcp refuses bad requests with a clear JSON-RPC error", () => {
  it("answers a body that is not JSON 400 with a parse error", async () => {
    const res = await post("{not json");
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({ code: -32700, message: "the request body is not JSON" });
  });

  it("answers a body over the hub's limit 413 naming the limit", async () => {
    const res = await post(JSON.stringify({ ...INIT, pad: "x".repeat(5000) }));
    expect(res.status).toBe(413);
    expect((await res.json()).error.message).toMatch(/limit of 4096 bytes/);
  });

  it("answers JSON nested past the depth limit 400", async () => {
    const res = await post(`${"[".repeat(100)}${"]".repeat(100)}`);
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toMatch(/nests deeper/);
  });

  it("answers a request that is not initialize and names no session 400, and an unknown session 404", async () => {
    const list = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    const none = await post(list);
    expect(none.status).toBe(400);
    expect((await none.json()).error.message).toMatch(/open a session with an initialize request/);
    const unknown = await post(list, { "mcp-session-id": "no-such-session" });
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error.message).toBe("Session not found");
  });

  it("refuses a request from a page of another origin 403", async () => {
    const res = await post(JSON.stringify(INIT), { origin: "https://evil.example.com" });
    expect(res.status).toBe(403);
    expect((await res.json()).error.message).toMatch(/another origin/);
  });

  it("ends a session on DELETE: its id is then unknown", async () => {
    const res = await post(JSON.stringify(INIT));
    const session = res.headers.get("mcp-session-id")!;
    await res.body?.cancel();
    const headers = { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" };
    expect((await fetch(new URL("mcp", t.url), { method: "DELETE", headers })).status).toBe(200);
    expect((await post(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }), headers)).status).toBe(404);
  });
});

describe("/mcp options and agents", () => {
  it("lists one tool per skill when configured, and one per agent for an agent without skills", () =>
    usingMcp(t.url, {}, async (mcp) => {
      const { tools } = await mcp.listTools();
      expect(tools.map((x) => x.name)).toEqual(["echo__echo", "plain"]);
      expect(tools[0]!.title).toBe("a2a-hub echo: Echo");
      const r = (await mcp.callTool({ name: "echo__echo", arguments: { text: "by skill" } })) as CallToolResult;
      expect(texts(r)[0]).toBe("by skill");
    }));

  it("calls an agent without streaming by SendMessage and answers with the settled task", () =>
    usingMcp(t.url, {}, async (mcp) => {
      const r = (await mcp.callTool({ name: "plain", arguments: { text: "no stream" } })) as CallToolResult;
      expect(structured(r).state).toBe("TASK_STATE_COMPLETED");
      expect(texts(r)[0]).toBe("no stream");
    }));

  it("cancels the task of an agent without streaming when the client cancels the call", () =>
    usingMcp(t.url, {}, async (mcp) => {
      const taskId = await callAndCancel(mcp, "plain", { text: "slow 60000" });
      await until("the task is canceled", async () => (await t.client("grpc").getTask({ tenant: "plain", id: taskId })).status?.state === TaskState.CANCELED);
    }));

  it("hands back the question when the client declines the elicitation", async () => {
    const mcp = await connectMcp(t.url, { elicit: () => ({ action: "decline" }) });
    try {
      const r = (await mcp.callTool({ name: "echo__echo", arguments: { text: "input-required" } })) as CallToolResult;
      expect(structured(r)).toMatchObject({ state: "TASK_STATE_INPUT_REQUIRED", question: "Send any text to complete this task." });
    } finally {
      await mcp.close();
    }
  });

  it("counts tool calls in the hub's metrics as A2A operations of the mcp binding", async () => {
    const mcp = await connectMcp(t.url);
    try {
      await mcp.callTool({ name: "echo__echo", arguments: { text: "counted" } });
    } finally {
      await mcp.close();
    }
    const metrics = await (await fetch(new URL("metrics", t.url))).text();
    expect(metrics).toMatch(/a2a_requests_total\{binding="mcp",method="SendStreamingMessage",agent="echo",outcome="ok"\} [1-9]/);
    expect(metrics).toMatch(/a2a_requests_total\{binding="mcp",method="GetTask",agent="echo",outcome="ok"\} [1-9]/);
  });
});

describe("/mcp under a rate limit", () => {
  it("answers 429 with Retry-After once the tenant's bucket is empty", async () => {
    const limited = await startTestHub({
      access: { tenants: [{ tenant: "t", tokenHashes: [hashToken("rate-token-0123456789")] }], agentTenants: new Map(), rateLimit: { burst: 2, perSecond: 0.01 } },
    });
    try {
      const statuses: number[] = [];
      let retryAfter: string | null = null;
      for (let i = 0; i < 4; i++) {
        const res = await fetch(new URL("mcp", limited.url), { method: "POST", headers: { ...HEADERS, authorization: "Bearer rate-token-0123456789" }, body: JSON.stringify(INIT) });
        statuses.push(res.status);
        if (res.status === 429) retryAfter = res.headers.get("retry-after");
        await res.body?.cancel();
      }
      expect(statuses).toEqual([200, 200, 429, 429]);
      expect(Number(retryAfter)).toBeGreaterThan(0);
    } finally {
      await limited.stop();
    }
  });
});

describe("/mcp sessions", () => {
  const opener = (h: TestHub) => async () => {
    const res = await fetch(new URL("mcp", h.url), { method: "POST", headers: HEADERS, body: JSON.stringify(INIT) });
    await res.body?.cancel();
    return res;
  };

  it("refuses a tenant's session past its limit 429", async () => {
    const h = await startTestHub({ mcp: { maxSessionsPerTenant: 2 } });
    try {
      const open = opener(h);
      expect([(await open()).status, (await open()).status]).toEqual([200, 200]);
      const third = await fetch(new URL("mcp", h.url), { method: "POST", headers: HEADERS, body: JSON.stringify(INIT) });
      expect(third.status).toBe(429);
      expect((await third.json()).error.message).toMatch(/2 MCP sessions open \(the limit\)/);
    } finally {
      await h.stop();
    }
  });

  it("forgets a session idle past sessionIdleMs: it no longer counts against the tenant, and its id is unknown", async () => {
    const h = await startTestHub({ mcp: { maxSessionsPerTenant: 1, sessionIdleMs: 300 } });
    try {
      const open = opener(h);
      const first = await open();
      expect(first.status).toBe(200);
      // Nothing touches the first session meanwhile; a new one is taken once it has expired.
      await until("a second session is taken", async () => (await open()).status === 200);
      const res = await fetch(new URL("mcp", h.url), {
        method: "POST",
        headers: { ...HEADERS, "mcp-session-id": first.headers.get("mcp-session-id")!, "mcp-protocol-version": "2025-11-25" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
      });
      expect(res.status).toBe(404);
    } finally {
      await h.stop();
    }
  });

  it("keeps a session past sessionIdleMs while it answers a request: a tool call outlasting it completes", async () => {
    const h = await startTestHub({ mcp: { sessionIdleMs: 500 } });
    try {
      const init = await opener(h)();
      const headers = { ...HEADERS, "mcp-session-id": init.headers.get("mcp-session-id")!, "mcp-protocol-version": "2025-11-25" };
      const send = (body: unknown) => fetch(new URL("mcp", h.url), { method: "POST", headers, body: JSON.stringify(body) });
      const called = await send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { text: "slow 2500" } } });
      expect(called.status).toBe(200);
      expect(await called.text()).toContain('"state":"TASK_STATE_COMPLETED"');
      const listed = await send({ jsonrpc: "2.0", id: 3, method: "tools/list" });
      expect(listed.status).toBe(200);
      expect(await listed.text()).toContain('"name":"echo"');
    } finally {
      await h.stop();
    }
  });

  it("takes requests from a page of the hub's own origin", async () => {
    const res = await post(JSON.stringify(INIT), { origin: t.url.replace(/\/$/, "") });
    expect(res.status).toBe(200);
    await res.body?.cancel();
  });

  it("cancels the task when the client cancels the call while an elicitation is open", async () => {
    const abort = new AbortController();
    let taskId = "";
    const mcp = await connectMcp(t.url, {
      elicit: () => {
        abort.abort();
        return new Promise(() => undefined);
      },
    });
    try {
      const call = mcp.callTool({ name: "echo__echo", arguments: { text: "input-required" } }, undefined, {
        signal: abort.signal,
        onprogress: (p) => {
          taskId ||= /^task (\S+):/.exec(p.message ?? "")?.[1] ?? "";
        },
      });
      await expect(call).rejects.toThrow();
      await until("the task is canceled", async () => (await t.client("grpc").getTask({ tenant: "echo", id: taskId })).status?.state === TaskState.CANCELED);
    } finally {
      await mcp.close();
    }
  });
});

describe("/mcp over HTTP/2", () => {
  it("serves a session over h2c as over HTTP/1.1: initialize, then tools/list on its session", async () => {
    const session = connect(t.url.replace(/\/$/, ""));
    try {
      const ask = (body: unknown, extra: Record<string, string> = {}) =>
        new Promise<{ status: number; headers: Record<string, unknown>; text: string }>((resolve, reject) => {
          const stream = session.request({ ":method": "POST", ":path": "/mcp", ...HEADERS, ...extra });
          let headers: Record<string, unknown> = {};
          let text = "";
          stream.on("response", (h) => (headers = h));
          stream.setEncoding("utf8");
          stream.on("data", (d: string) => (text += d));
          stream.on("end", () => resolve({ status: Number(headers[":status"]), headers, text }));
          stream.on("error", reject);
          stream.end(JSON.stringify(body));
        });
      const init = await ask(INIT);
      expect(init.status).toBe(200);
      expect(init.text).toContain('"serverInfo"');
      const id = String(init.headers["mcp-session-id"]);
      const list = await ask({ jsonrpc: "2.0", id: 2, method: "tools/list" }, { "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" });
      expect(list.status).toBe(200);
      expect(list.text).toContain('"name":"echo__echo"');
    } finally {
      session.close();
    }
  });
});
