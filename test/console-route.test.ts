import { get } from "node:http";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tenantHubOptions } from "./helpers/tenant-hub.js";
import { startTestHub, type TestHub } from "./helpers/test-hub.js";

describe("the console's route on an open hub", () => {
  let th: TestHub;
  beforeAll(async () => {
    th = await startTestHub();
  });
  afterAll(() => th?.stop());

  it("serves the page at /console and /console/ with a script-only-from-self CSP", async () => {
    for (const path of ["console", "console/"]) {
      const res = await fetch(new URL(path, th.url));
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(res.headers.get("content-security-policy")).toContain("script-src 'self'");
      expect(await res.text()).toContain('<script type="module" src="/console/app.js">');
    }
  });

  it("serves the bundled script gzipped or plain, with an ETag that answers 304, and no Node code in it", async () => {
    // node:http, which (unlike fetch) hands back the bytes as sent.
    const [encoding, zipped] = await new Promise<[string | undefined, Buffer]>((resolve, reject) =>
      get(new URL("console/app.js", th.url), { headers: { "accept-encoding": "gzip, deflate, br" } }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve([res.headers["content-encoding"], Buffer.concat(chunks)]));
      }).on("error", reject),
    );
    expect(encoding).toBe("gzip");
    const plain = await fetch(new URL("console/app.js", th.url), { headers: { "accept-encoding": "identity" } });
    expect(plain.headers.get("content-encoding")).toBeNull();
    const js = await plain.text();
    expect(gunzipSync(zipped).toString()).toBe(js);
    // The browser app carries connect-web and the generated service, nothing of the server.
    expect(js.includes("Connect-Protocol-Version"), "connect-web is in the bundle").toBe(true);
    expect(/from\s*"node:|require\("node:|better-sqlite3/.test(js), "server code is in the bundle").toBe(false);
    console.log(`console bundle: ${js.length} bytes minified, ${zipped.length} bytes gzipped`);
    const again = await fetch(new URL("console/app.js", th.url), { headers: { "if-none-match": plain.headers.get("etag")! } });
    expect(again.status).toBe(304);
  });

  it("answers 405 to other methods and 404 to unknown paths under /console", async () => {
    const post = await fetch(new URL("console", th.url), { method: "POST", body: "x" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
    const missing = await fetch(new URL("console/secret.txt", th.url));
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.status).toBe("NOT_FOUND");
  });
});

describe("the console's agent catalog on a hub with tenants", () => {
  const TOKENS = { acme: "acme-token-1", globex: "globex-token-1" };
  let th: TestHub;
  beforeAll(async () => {
    th = await startTestHub(tenantHubOptions(TOKENS, [{ id: "shared" }, { id: "acme-only", tenants: ["acme"] }]));
  });
  afterAll(() => th?.stop());

  const catalog = (token?: string) => fetch(new URL("console/agents.json", th.url), { headers: token ? { authorization: `Bearer ${token}` } : {} });

  it("refuses a missing or wrong token with 401 and WWW-Authenticate", async () => {
    for (const token of [undefined, "wrong"]) {
      const res = await catalog(token);
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toContain("Bearer");
    }
  });

  it("lists only the agents a token may call, with their card URLs, never cached", async () => {
    const acme = await catalog(TOKENS.acme);
    expect(acme.headers.get("cache-control")).toBe("no-store");
    const body = await acme.json();
    expect(body).toEqual({
      authRequired: true,
      agents: [
        { id: "shared", cardUrl: `${th.url}v1/a2a/agents/shared/agent-card.json` },
        { id: "acme-only", cardUrl: `${th.url}v1/a2a/agents/acme-only/agent-card.json` },
      ],
    });
    expect((await (await catalog(TOKENS.globex)).json()).agents.map((a: { id: string }) => a.id)).toEqual(["shared"]);
    // The page itself needs no token: it holds nothing but the app.
    expect((await fetch(new URL("console/", th.url))).status).toBe(200);
  });
});
