import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ClientFactory, createAuthenticatingFetchWithRetry, JsonRpcTransportFactory, RestTransportFactory } from "@a2a-js/sdk/client";
import { COMPLETED, sdkSend, stateOf } from "../helpers/a2a-sdk.js";
import { HUB_AUDIENCE, TestIdp } from "../helpers/test-idp.js";
import { configHubOptions } from "../helpers/tenant-hub.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";

/**
 * The official SDK client (@a2a-js/sdk) calls a hub protected by an
 * identity provider: it reads the token URL from the hub's card (§4.5
 * oauth2 client credentials), gets a token there, and sends it.
 */
let idp: TestIdp;
let hub: TestHub;
beforeAll(async () => {
  idp = await TestIdp.start([{ id: "sdk-bot", secret: "sdk-secret", org: "acme" }]);
  hub = await startTestHub(
    configHubOptions({ auth: { jwt: [{ issuer: idp.issuer, audience: HUB_AUDIENCE, tenantClaim: "org" }] }, tenants: [{ id: "acme" }], agents: [{ id: "echo", kind: "echo" }] }),
  );
});
afterAll(async () => {
  await hub?.stop();
  await idp?.stop();
});

/** A fetch that authenticates as the SDK's AuthenticationHandler does: a token on each request, a new one after a 401. */
function idpFetch(tokenUrl: () => Promise<string>): { fetch: typeof fetch; tokensFetched: () => number } {
  let token: string | undefined;
  let fetched = 0;
  const newToken = async (): Promise<string> => {
    const res = await fetch(await tokenUrl(), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${Buffer.from("sdk-bot:sdk-secret").toString("base64")}` },
      body: new URLSearchParams({ grant_type: "client_credentials", scope: "a2a.send a2a.read" }),
    });
    fetched++;
    return (token = ((await res.json()) as { access_token: string }).access_token);
  };
  const authed = createAuthenticatingFetchWithRetry(fetch, {
    headers: async (): Promise<Record<string, string>> => (token ? { authorization: `Bearer ${token}` } : {}),
    shouldRetryWithHeaders: async (_req, res) => (res.status === 401 ? { authorization: `Bearer ${await newToken()}` } : undefined),
  });
  return { fetch: authed, tokensFetched: () => fetched };
}

describe("the official SDK client with a token of the identity provider", () => {
  it.each(["jsonrpc", "rest"] as const)("over %s: finds the token URL on the card, is refused without a token, then sends and reads with one", async (binding) => {
    // The card is public: it names the token endpoint of the client-credentials flow.
    let tokenUrl: string | undefined;
    const cardTokenUrl = async (): Promise<string> => {
      if (tokenUrl) return tokenUrl;
      const card = (await (await fetch(`${hub.url}.well-known/agent-card.json`, { headers: { "a2a-version": "1.0" } })).json()) as any;
      return (tokenUrl = card.securitySchemes.oauth2.oauth2SecurityScheme.flows.clientCredentials.tokenUrl as string);
    };
    const auth = idpFetch(cardTokenUrl);
    const transport = binding === "jsonrpc" ? new JsonRpcTransportFactory({ fetchImpl: auth.fetch }) : new RestTransportFactory({ fetchImpl: auth.fetch });
    const client = await new ClientFactory({ transports: [transport] }).createFromUrl(hub.url);
    const sent: any = await client.sendMessage(sdkSend("hello through the IdP"));
    expect(stateOf(sent)).toBe(COMPLETED);
    // The first request met a 401 and was retried once with a token from the card's token URL.
    expect(tokenUrl).toBe(`${idp.issuer}/token`);
    expect(auth.tokensFetched()).toBe(1);
    const got: any = await client.getTask({ tenant: "", id: sent.id, historyLength: undefined } as never);
    expect(got.id).toBe(sent.id);
    expect(auth.tokensFetched()).toBe(1);
  });
});
