import { get } from "node:http";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";

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
    // No console-only endpoint: the agents come from the public catalog at /v1/a2a/agents.
    expect((await fetch(new URL("console/agents.json", th.url))).status).toBe(404);
  });

  it("serves an icon at /favicon.ico and /console/favicon.svg, and the page links it, so no page load meets a 404", async () => {
    for (const path of ["favicon.ico", "console/favicon.svg"]) {
      const res = await fetch(new URL(path, th.url));
      expect(res.status, path).toBe(200);
      expect(res.headers.get("content-type")).toBe("image/svg+xml");
      expect(await res.text()).toMatch(/^<svg /);
    }
    expect(await (await fetch(new URL("console", th.url))).text()).toContain('<link rel="icon" href="/console/favicon.svg"');
  });
});
