import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { createOnePortServer, type OnePortServer } from "../../../src/server/one-port.js";

/**
 * One-port closes an HTTP/2 session that never opens a stream after the
 * headers timeout, and keeps one that has served requests: its idle timer
 * (one per session, re-armed when its last stream closes) is minutes long,
 * and an open stream holds the session however long it stays quiet.
 */
describe("HTTP/2 session idle watch", () => {
  const HEADERS_TIMEOUT_MS = 300;
  let server: OnePortServer;
  let url: string;
  beforeAll(async () => {
    server = createOnePortServer(
      (req, res) => {
        // /slow answers after three headers timeouts: its stream stays open, quiet, meanwhile.
        const delay = req.url === "/slow" ? 3 * HEADERS_TIMEOUT_MS : 0;
        setTimeout(() => res.end("ok"), delay);
      },
      { headersTimeoutMs: HEADERS_TIMEOUT_MS },
    );
    await new Promise<void>((resolve) => server.net.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.net.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.stopAccepting();
    await server.drained(1_000);
    server.net.close();
  });

  const connect = async (): Promise<{ session: http2.ClientHttp2Session; closed: () => boolean }> => {
    const session = http2.connect(url);
    session.on("error", () => {});
    let gone = false;
    session.once("goaway", () => (gone = true));
    session.once("close", () => (gone = true));
    await new Promise<void>((resolve) => session.once("connect", () => resolve()));
    return { session, closed: () => gone };
  };
  const get = (session: http2.ClientHttp2Session, path: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const stream = session.request({ ":path": path });
      let body = "";
      stream.setEncoding("utf8");
      stream.on("data", (d: string) => (body += d));
      stream.on("end", () => resolve(body));
      stream.on("error", reject);
      stream.end();
    });
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it("closes a session that opens no stream within the headers timeout", async () => {
    const { session, closed } = await connect();
    await expect.poll(closed, { timeout: 10 * HEADERS_TIMEOUT_MS }).toBe(true);
    session.destroy();
  });

  it("keeps a session whose stream stays open past the timeout, and one that served requests and went quiet", async () => {
    const { session, closed } = await connect();
    expect(await get(session, "/slow")).toBe("ok");
    expect(closed()).toBe(false);
    // Calls one at a time: the last stream closes after every one of them.
    for (let i = 0; i < 5; i++) expect(await get(session, "/")).toBe("ok");
    await sleep(3 * HEADERS_TIMEOUT_MS);
    expect(closed()).toBe(false);
    expect(await get(session, "/")).toBe("ok");
    session.close();
  });
});
