import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tenantHubOptions } from "../helpers/tenant-hub.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";

interface Listed {
  id: string;
  cardUrl: string;
  card: Record<string, unknown>;
}

const catalogOf = (th: TestHub, headers: Record<string, string> = {}) => fetch(new URL("v1/a2a/agents", th.url), { headers });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe("GET /v1/a2a/agents on a hub without tenants", () => {
  let th: TestHub;
  beforeAll(async () => {
    th = await startTestHub(tenantHubOptions({}, [{ id: "alpha" }, { id: "beta" }, { id: "gamma" }]));
  });
  afterAll(() => th?.stop());

  it("lists every agent with its card URL and the card that URL serves, no token needed", async () => {
    const res = await catalogOf(th, { "a2a-version": "1.0" });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("private, no-cache");
    expect(res.headers.get("vary")).toBe("A2A-Version, Authorization");
    const { agents } = (await res.json()) as { agents: Listed[] };
    expect(agents.map((a) => a.id)).toEqual(["alpha", "beta", "gamma"]);
    for (const a of agents) {
      expect(a.cardUrl).toBe(`${th.url}v1/a2a/agents/${a.id}/agent-card.json`);
      const own = await fetch(a.cardUrl, { headers: { "a2a-version": "1.0" } });
      expect(a.card).toEqual(await own.json());
    }
  });

  it("gives each card in the form A2A-Version asks for, as the per-agent card route does", async () => {
    const v03 = (await (await catalogOf(th, { "a2a-version": "0.3" })).json()) as { agents: Listed[] };
    const v1 = (await (await catalogOf(th, { "a2a-version": "1.0" })).json()) as { agents: Listed[] };
    // §3.6.2: the v0.3 form carries `url` and `protocolVersion`; the v1.0 form only the v1.0 schema's fields.
    expect(v03.agents[0]!.card).toHaveProperty("protocolVersion");
    expect(v1.agents[0]!.card).not.toHaveProperty("protocolVersion");
    const own = await fetch(v03.agents[0]!.cardUrl, { headers: { "a2a-version": "0.3" } });
    expect(v03.agents[0]!.card).toEqual(await own.json());
  });

  it("answers only GET", async () => {
    expect((await fetch(new URL("v1/a2a/agents", th.url), { method: "DELETE" })).status).toBe(404);
  });
});

describe("GET /v1/a2a/agents on a hub with tenants", () => {
  const TOKENS = { acme: "acme-token-1", globex: "globex-token-1" };
  let th: TestHub;
  beforeAll(async () => {
    th = await startTestHub(tenantHubOptions(TOKENS, [{ id: "shared" }, { id: "acme-only", tenants: ["acme"] }, { id: "globex-only", tenants: ["globex"] }]));
  });
  afterAll(() => th?.stop());

  it("lists only the agents a token may call", async () => {
    const ids = async (token: string) => ((await (await catalogOf(th, bearer(token))).json()) as { agents: Listed[] }).agents.map((a) => a.id);
    expect(await ids(TOKENS.acme)).toEqual(["shared", "acme-only"]);
    expect(await ids(TOKENS.globex)).toEqual(["shared", "globex-only"]);
  });

  it("refuses a missing or wrong token with the same 401 as the per-agent card", async () => {
    for (const token of [undefined, "wrong"]) {
      const headers = token ? bearer(token) : {};
      const listing = await catalogOf(th, headers);
      const card = await fetch(new URL("v1/a2a/agents/shared/agent-card.json", th.url), { headers });
      expect(listing.status).toBe(401);
      expect(card.status).toBe(401);
      expect(listing.headers.get("www-authenticate")).toBe(card.headers.get("www-authenticate"));
      expect(await listing.json()).toEqual(await card.json());
    }
  });
});
