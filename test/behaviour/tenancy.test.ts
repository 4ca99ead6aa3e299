import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { A2AService } from "../../gen/a2a/v1/a2a_pb.js";
import { hashToken } from "../../src/auth/index.js";
import { tenantHubOptions } from "../helpers/tenant-hub.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";
import { hubCardOf, everyTaskCall, hubClient, listedIds, openTask, outcomeOf, type HubClient } from "../helpers/hub-clients.js";

const TOKENS = { t1: "token-of-tenant-one", t2: "token-of-tenant-two" } as const;
type Tenant = keyof typeof TOKENS;
const AGENTS = ["alpha", "beta"] as const;
const BINDINGS = ["jsonrpc", "rest", "grpc"] as const;

let t: TestHub;
beforeAll(async () => {
  t = await startTestHub(tenantHubOptions(TOKENS, [{ id: "alpha" }, { id: "beta" }, { id: "private", tenants: ["t1"] }]));
});
const clients = new Map<string, Promise<HubClient>>();
afterAll(async () => {
  for (const c of clients.values()) (await c).close();
  await t.stop();
});

/** A client of `agent` as `tenant`, from the card the hub publishes for the agent (in hand: a private or unknown agent's card is not served). */
function clientFor(binding: (typeof BINDINGS)[number], tenant: Tenant, agent: string): Promise<HubClient> {
  const key = `${binding} ${tenant} ${agent}`;
  if (!clients.has(key)) clients.set(key, hubClient(hubCardOf(t.url, agent), binding, { token: TOKENS[tenant] }));
  return clients.get(key)!;
}

describe.each(BINDINGS)("isolation over %s: 2 tenants × 2 agents × every task operation", (binding) => {
  it("a task is visible to its own (tenant, agent) only; every other pair gets not-found", { timeout: 60_000 }, async () => {
    const owners: Array<{ tenant: Tenant; agent: string; id: string }> = [];
    for (const tenant of ["t1", "t2"] as Tenant[]) for (const agent of AGENTS) owners.push({ tenant, agent, id: await openTask(await clientFor(binding, tenant, agent)) });
    for (const owner of owners) {
      const own = everyTaskCall(await clientFor(binding, owner.tenant, owner.agent), owner.id);
      expect(await outcomeOf(own.get)).toBe("ok");
      expect(await outcomeOf(own.pushList)).toBe("ok");
      for (const tenant of ["t1", "t2"] as Tenant[]) {
        for (const agent of AGENTS) {
          if (tenant === owner.tenant && agent === owner.agent) continue;
          const other = everyTaskCall(await clientFor(binding, tenant, agent), owner.id);
          const seen = {
            get: await outcomeOf(other.get),
            cancel: await outcomeOf(other.cancel),
            subscribe: await outcomeOf(other.subscribe),
            followUp: await outcomeOf(other.followUp),
            pushCreate: await outcomeOf(other.pushCreate),
            pushList: await outcomeOf(other.pushList),
          };
          expect(seen, `${tenant}/${agent} reaching ${owner.tenant}/${owner.agent}'s task`).toEqual({
            get: "not-found",
            cancel: "not-found",
            subscribe: "not-found",
            followUp: "not-found",
            pushCreate: "not-found",
            pushList: "not-found",
          });
        }
      }
    }
    // ListTasks never returns a foreign task.
    for (const tenant of ["t1", "t2"] as Tenant[]) {
      for (const agent of AGENTS) {
        const listed = await listedIds(await clientFor(binding, tenant, agent));
        const foreign = owners.filter((o) => o.tenant !== tenant || o.agent !== agent).map((o) => o.id);
        expect(listed.filter((id) => foreign.includes(id))).toEqual([]);
        expect(listed).toContain(owners.find((o) => o.tenant === tenant && o.agent === agent)!.id);
      }
    }
    // The owner can still cancel: nothing above touched the tasks.
    for (const owner of owners) expect(await outcomeOf(everyTaskCall(await clientFor(binding, owner.tenant, owner.agent), owner.id).cancel)).toBe("ok");
  });

  it("an agent the tenant may not call answers as if it did not exist", async () => {
    const get = async (tenant: Tenant, agent: string, id: string) => outcomeOf(async () => (await clientFor(binding, tenant, agent)).get(id));
    expect(await get("t2", "private", "any")).toBe("not-found");
    expect(await get("t2", "nonexistent", "any")).toBe("not-found");
    expect(await get("t1", "private", await openTask(await clientFor(binding, "t1", "private")))).toBe("ok");
  });
});

describe("authentication (§7, §13.1)", () => {
  it("JSON-RPC, REST and per-agent cards answer 401 with WWW-Authenticate: Bearer without a valid token", async () => {
    for (const [method, path, body] of [
      ["POST", "v1/a2a/agents/alpha", JSON.stringify({ jsonrpc: "2.0", id: 5, method: "GetTask", params: { id: "x" } })],
      ["POST", "", JSON.stringify({ jsonrpc: "2.0", id: 5, method: "GetTask", params: { id: "x" } })],
      ["GET", "v1/a2a/agents/alpha/tasks", undefined],
      ["GET", "tasks", undefined],
      ["GET", "v1/a2a/agents/alpha/agent-card.json", undefined],
    ] as const) {
      for (const authorization of [undefined, "Bearer wrong-token", "Basic dXNlcjpwYXNz"]) {
        const res = await fetch(new URL(path, t.url), { method, body, headers: { "content-type": "application/json", ...(authorization ? { authorization } : {}) } });
        expect(res.status, `${method} /${path} with ${authorization}`).toBe(401);
        expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
        if (method === "POST") expect(((await res.json()) as any).id).toBe(5);
      }
    }
  });

  it("gRPC and Connect answer UNAUTHENTICATED without a valid token", async () => {
    const client = createClient(A2AService, createGrpcTransport({ baseUrl: t.url.replace(/\/$/, "") }));
    const err = await client.getTask({ tenant: "alpha", id: "x" }).catch((e: unknown) => ConnectError.from(e));
    expect((err as ConnectError).code).toBe(Code.Unauthenticated);
  });

  it("the well-known card is an unauthenticated stub naming no agent; per-agent cards declare bearer auth and the gRPC tenant", async () => {
    const stub = (await (await fetch(new URL(".well-known/agent-card.json", t.url))).json()) as any;
    expect(JSON.stringify(stub)).not.toMatch(/alpha|beta|private/);
    expect(stub.agentCardUrlTemplate).toContain("/v1/a2a/agents/{agentId}/agent-card.json");
    expect(stub.securitySchemes.bearer.httpAuthSecurityScheme.scheme).toBe("Bearer");
    const res = await fetch(new URL("v1/a2a/agents/alpha/agent-card.json", t.url), { headers: { authorization: `Bearer ${TOKENS.t2}` } });
    expect(res.status).toBe(200);
    const card = (await res.json()) as any;
    expect(card.securitySchemes.bearer.httpAuthSecurityScheme.scheme).toBe("Bearer");
    expect(card.securityRequirements).toEqual([{ schemes: { bearer: {} } }]); // ProtoJSON drops the empty scope list
    const byBinding = Object.fromEntries(card.supportedInterfaces.filter((i: any) => i.protocolVersion === "1.0").map((i: any) => [i.protocolBinding, i]));
    expect(byBinding.JSONRPC.url).toBe(new URL("v1/a2a/agents/alpha", t.url).href);
    expect(byBinding["HTTP+JSON"].url).toBe(new URL("v1/a2a/agents/alpha", t.url).href);
    expect(byBinding.GRPC.tenant).toBe("alpha");
    const forbidden = await fetch(new URL("v1/a2a/agents/private/agent-card.json", t.url), { headers: { authorization: `Bearer ${TOKENS.t2}` } });
    expect(forbidden.status).toBe(404);
  });
});

describe("rate limits", () => {
  let limited: TestHub;
  beforeAll(async () => {
    limited = await startTestHub({
      access: { tenants: [{ tenant: "t1", tokenHashes: [hashToken(TOKENS.t1)] }], agentTenants: new Map(), rateLimit: { burst: 2, perSecond: 1 } },
    });
  });
  afterAll(async () => {
    await limited.stop();
  });
  const auth = { authorization: `Bearer ${TOKENS.t1}`, "content-type": "application/json" };

  it("JSON-RPC answers 429 with Retry-After and a -32000 envelope echoing the id; REST 429; gRPC RESOURCE_EXHAUSTED", async () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: "req-9", method: "ListTasks", params: {} });
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 4; i++) {
      last = await fetch(limited.url, { method: "POST", headers: auth, body });
      statuses.push(last.status);
    }
    expect(statuses.slice(0, 2)).toEqual([200, 200]);
    expect(statuses.at(-1)).toBe(429);
    expect(Number(last!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(await last!.json()).toMatchObject({ jsonrpc: "2.0", id: "req-9", error: { code: -32000 } });
    const rest = await fetch(new URL("tasks", limited.url), { headers: auth });
    expect(rest.status).toBe(429);
    expect(((await rest.json()) as any).error.status).toBe("RESOURCE_EXHAUSTED");
    const grpc = createClient(A2AService, createGrpcTransport({ baseUrl: limited.url.replace(/\/$/, ""), interceptors: [(next) => (req) => (req.header.set("authorization", `Bearer ${TOKENS.t1}`), next(req))] }));
    const err = await grpc.listTasks({}).catch((e: unknown) => ConnectError.from(e));
    expect((err as ConnectError).code).toBe(Code.ResourceExhausted);
  });
});

describe("@a2a-js/sdk with a bearer token, from a per-agent card", () => {
  it("sends a message to the agent it was pointed at", async () => {
    const { ClientFactory, JsonRpcTransportFactory, DefaultAgentCardResolver } = await import("@a2a-js/sdk/client");
    const authed: typeof fetch = (url, init) => fetch(url, { ...init, headers: { ...(init?.headers as Record<string, string>), authorization: `Bearer ${TOKENS.t1}` } });
    const client = await new ClientFactory({
      transports: [new JsonRpcTransportFactory({ fetchImpl: authed })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl: authed }),
    }).createFromUrl(new URL("v1/a2a/agents/private/", t.url).href, "agent-card.json");
    const result: any = await client.sendMessage({
      tenant: "",
      message: { messageId: "sdk-1", contextId: "", taskId: "", role: 1, parts: [{ content: { $case: "text", value: "hi" }, metadata: undefined, filename: "", mediaType: "" }], metadata: undefined, extensions: [], referenceTaskIds: [] },
      configuration: undefined,
      metadata: undefined,
    } as never);
    expect(result.status.state).toBe(3);
    // The task lives with (t1, private): tenant t2 cannot see it even on an agent it may call.
    const t2 = await clientFor("jsonrpc", "t2", "alpha");
    expect(await outcomeOf(() => t2.get(result.id))).toBe("not-found");
  });
});
