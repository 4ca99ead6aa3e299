import * as http2 from "node:http2";
import { describe, expect, it } from "vitest";
import { hashToken } from "../../src/auth/index.js";
import { connectFrom, FLAG, frame, FRAME, H2_ERROR, headerBlock, headerFields, postHeaders, rawH2, waitUntil, type RawH2 } from "../helpers/h2-frames.js";
import { postHead, rawConnection } from "../helpers/raw-client.js";
import { textRequest } from "../helpers/messages.js";
import { tenantHubOptions } from "../helpers/tenant-hub.js";
import { startTestHub, withTestHub } from "../helpers/test-hub.js";

/**
 * The one port's own limits, met by clients that break them on purpose
 * (raw frames where Node's client would not): each refusal takes effect
 * and is counted in /metrics under the limit's name.
 */

const SCRAPE_TOKEN = "door-limits-scrape";

/** The value of a2a_refusals_total{reason} in the hub's /metrics (0 when absent). */
async function refusals(url: string, reason: string): Promise<number> {
  const text = await (await fetch(`${url}metrics`, { headers: { authorization: `Bearer ${SCRAPE_TOKEN}` } })).text();
  const m = new RegExp(`^a2a_refusals_total\\{reason="${reason.replace(".", "\\.")}"\\} (\\d+)`, "m").exec(text);
  return m ? Number(m[1]) : 0;
}

/** Whether the socket has been closed by the server within `ms`. */
function closedWithin(socket: import("node:net").Socket, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    if (socket.destroyed) return resolve(true);
    const timer = setTimeout(() => resolve(false), ms);
    socket.once("close", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

describe("HTTP/2 limits", () => {
  const t = withTestHub({ metrics: { tokenHash: hashToken(SCRAPE_TOKEN) } });

  it("a client is told SETTINGS_MAX_CONCURRENT_STREAMS 100, the header list size, RFC 7541's header table size, and push is off", async () => {
    const session = http2.connect(t.hub.url);
    await new Promise<void>((resolve) => session.once("remoteSettings", () => resolve()));
    expect(session.remoteSettings.maxConcurrentStreams).toBe(100);
    expect(session.remoteSettings.maxHeaderListSize).toBe(32 * 1024);
    expect(session.remoteSettings.enablePush).toBe(false);
    // Pinned at the default: a proxy that never sends a table-size update (RFC 7541 §4.2) still works.
    expect(session.remoteSettings.headerTableSize).toBe(4096);
    // And the ordinary calls of a client that honours it go through.
    expect((await t.hub.client("grpc").sendMessage(textRequest("after the settings"))).payload.case).toBe("task");
    session.close();
  });

  it("streams opened past the limit before the client acknowledged it are refused with REFUSED_STREAM, the first 100 served", async () => {
    const c = await rawH2(t.hub.url, { ackSettings: false });
    // Requests whose body never comes: each stream stays open.
    for (let i = 0; i < 130; i++) await c.open(1 + 2 * i, postHeaders("x"), false);
    expect(await waitUntil(() => c.seen.resets.filter((r) => r === H2_ERROR.REFUSED_STREAM).length >= 30, 5_000)).toBe(true);
    expect(c.seen.resets.filter((r) => r === H2_ERROR.REFUSED_STREAM)).toHaveLength(30);
    expect(c.seen.goaway).toBeUndefined();
    c.destroy();
  });

  it("a client that goes on past the acknowledged limit loses the connection (GOAWAY PROTOCOL_ERROR), counted as h2.protocolError", async () => {
    const before = await refusals(t.hub.url, "h2.protocolError");
    const c = await rawH2(t.hub.url, { from: "127.0.2.2" });
    await waitUntil(() => false, 100); // the server's SETTINGS acknowledged
    for (let i = 0; i < 130 && !c.seen.closed; i++) await c.open(1 + 2 * i, postHeaders("x"), false);
    expect(await waitUntil(() => c.seen.closed, 5_000)).toBe(true);
    expect(c.seen.goaway).toBe(H2_ERROR.PROTOCOL_ERROR);
    expect(await refusals(t.hub.url, "h2.protocolError")).toBe(before + 1);
  });

  /** Floods RFC 9113 §10.5 warns of, each sent until the session ends (or 200,000 frames). */
  const floods: ReadonlyArray<readonly [string, (c: RawH2) => Promise<void>]> = [
    ["a PING flood (CVE-2019-9512) never reading the ACKs", async (c) => {
      c.socket.pause();
      const ping = frame(FRAME.PING, 0, 0, Buffer.alloc(8));
      for (let i = 0; i < 200_000 && !c.seen.closed; i++) await c.send(ping);
    }],
    ["a SETTINGS flood (CVE-2019-9515) never reading the ACKs", async (c) => {
      c.socket.pause();
      const settings = frame(FRAME.SETTINGS, 0, 0, Buffer.from([0, 4, 0, 0, 0xff, 0xff]));
      for (let i = 0; i < 200_000 && !c.seen.closed; i++) await c.send(settings);
    }],
    ["a flood of empty DATA frames (CVE-2019-9518)", async (c) => {
      await c.open(1, postHeaders("x"), false);
      const empty = frame(FRAME.DATA, 0, 1);
      for (let i = 0; i < 200_000 && !c.seen.closed; i++) await c.send(empty);
    }],
    ["a CONTINUATION flood without end (CVE-2024-27316)", async (c) => {
      await c.send(frame(FRAME.HEADERS, 0, 1, headerBlock(postHeaders("x"))));
      const more = headerFields([["x-more", "y".repeat(64)]]);
      for (let i = 0; i < 200_000 && !c.seen.closed; i++) await c.send(frame(FRAME.CONTINUATION, 0, 1, more));
    }],
    ["a rapid reset flood (CVE-2023-44487)", async (c) => {
      for (let id = 1; id < 400_000 && !c.seen.closed; id += 2) {
        await c.open(id, postHeaders("x"), false);
        await c.send(frame(FRAME.RST_STREAM, 0, id, Buffer.from([0, 0, 0, H2_ERROR.CANCEL])));
      }
    }],
  ];

  it.each(floods)("%s ends the session with GOAWAY ENHANCE_YOUR_CALM, counted as h2.flood", async (name, flood) => {
    const before = await refusals(t.hub.url, "h2.flood");
    // From an address of its own: the hub bars an address whose sessions it keeps ending.
    const c = await rawH2(t.hub.url, { from: `127.0.1.${floods.findIndex(([n]) => n === name) + 2}` });
    await waitUntil(() => false, 100);
    await flood(c);
    c.socket.resume();
    expect(await waitUntil(() => c.seen.closed, 5_000)).toBe(true);
    // A client that never read may not see the GOAWAY (it sits behind the ACKs): the count says how it ended.
    if (c.seen.goaway !== undefined || !name.includes("never reading")) expect(c.seen.goaway).toBe(H2_ERROR.ENHANCE_YOUR_CALM);
    expect(await refusals(t.hub.url, "h2.flood")).toBe(before + 1);
  });

  it("a header section over limits.maxHeaderBytes is refused on HTTP/2 and on HTTP/1.1 (431)", async () => {
    const c = await rawH2(t.hub.url);
    await c.send(frame(FRAME.HEADERS, FLAG.END_HEADERS | FLAG.END_STREAM, 1, headerBlock(postHeaders("x", [["x-big", "z".repeat(40_000)]]))));
    expect(await waitUntil(() => c.seen.resets.length > 0 || c.seen.closed, 5_000)).toBe(true);
    expect(c.seen.answers).toBe(0);
    c.destroy();
    const counted = await refusals(t.hub.url, "limits.maxHeaderBytes");
    const h1 = await fetch(t.hub.url, { method: "POST", headers: { "content-type": "application/json", "x-big": "z".repeat(40_000) }, body: "{}" });
    expect(h1.status).toBe(431);
    expect(await refusals(t.hub.url, "limits.maxHeaderBytes")).toBe(counted + 1);
  });

  it("HTTP/1.1 headers that never finish are answered 408 and counted as limits.headersTimeoutMs", async () => {
    const slow = await startTestHub({ headersTimeoutMs: 300, metrics: { tokenHash: hashToken(SCRAPE_TOKEN) } });
    try {
      const socket = await rawConnection(slow.url);
      socket.write("POST / HTTP/1.1\r\nHost: x\r\nx-slow: ");
      let text = "";
      socket.on("data", (b: Buffer) => (text += b.toString()));
      expect(await closedWithin(socket, 5_000)).toBe(true);
      expect(text).toMatch(/^HTTP\/1\.1 408 /);
      expect(await refusals(slow.url, "limits.headersTimeoutMs")).toBe(1);
    } finally {
      await slow.stop();
    }
  });
});

describe("HTTP/2 session memory", () => {
  /** Opens 90 streams whose requests carry 16 KB of headers and never send a body; the RST_STREAM codes they get. */
  const openHeavyStreams = async (url: string): Promise<number[]> => {
    const c = await rawH2(url);
    await waitUntil(() => false, 100); // the server's SETTINGS acknowledged
    for (let i = 0; i < 90 && !c.seen.closed; i++) await c.open(1 + 2 * i, postHeaders("x", [["x-pad", "p".repeat(16_000)]]), false);
    await waitUntil(() => false, 500);
    expect(c.seen.closed).toBe(false);
    c.destroy();
    return c.seen.resets;
  };

  it("a session past limits.maxSessionMemoryMiB has its new streams refused with ENHANCE_YOUR_CALM; the session and other clients go on", async () => {
    const t = await startTestHub({ connectionLimits: { maxSessionMemoryMiB: 1 } });
    try {
      const resets = await openHeavyStreams(t.url);
      expect(resets.length).toBeGreaterThan(0);
      expect(resets.length).toBeLessThan(90);
      expect(new Set(resets)).toEqual(new Set([H2_ERROR.ENHANCE_YOUR_CALM]));
      expect((await t.client("grpc").sendMessage(textRequest("after the heavy session"))).payload.case).toBe("task");
    } finally {
      await t.stop();
    }
  });

  it("the default session memory holds the same streams without refusing any", async () => {
    const t = await startTestHub();
    try {
      expect(await openHeavyStreams(t.url)).toEqual([]);
    } finally {
      await t.stop();
    }
  });
});

describe("connection limits", () => {
  it("connections past limits.maxConnectionsPerAddress from one address are closed at once, other addresses are still served, and each refusal is counted", async () => {
    const t = await startTestHub({ metrics: { tokenHash: hashToken(SCRAPE_TOKEN) }, connectionLimits: { maxConnectionsPerAddress: 3 } });
    try {
      const held = await Promise.all([1, 2, 3].map(() => connectFrom(t.url, "127.0.0.2")));
      const over = await connectFrom(t.url, "127.0.0.2");
      expect(await closedWithin(over, 2_000)).toBe(true);
      expect(await closedWithin(held[0]!, 200)).toBe(false);
      // Another address still gets in and is answered.
      expect((await fetch(`${t.url}healthz`)).status).toBe(200);
      expect(await refusals(t.url, "limits.maxConnectionsPerAddress")).toBe(1);
      // A connection that closes gives its place back.
      held[0]!.destroy();
      await waitUntil(() => false, 100);
      const again = await connectFrom(t.url, "127.0.0.2");
      expect(await closedWithin(again, 300)).toBe(false);
      for (const s of [...held, again]) s.destroy();
    } finally {
      await t.stop();
    }
  });

  it("connections past limits.maxConnections are closed at once, whoever opens them, and counted", async () => {
    const t = await startTestHub({ metrics: { tokenHash: hashToken(SCRAPE_TOKEN) }, connectionLimits: { maxConnections: 4 } });
    try {
      const held = await Promise.all(["127.0.0.2", "127.0.0.3", "127.0.0.4"].map((from) => connectFrom(t.url, from)));
      const over = await connectFrom(t.url, "127.0.0.5");
      // The fourth is admitted (three held), the fifth is not.
      expect(await closedWithin(over, 300)).toBe(false);
      const fifth = await connectFrom(t.url, "127.0.0.6");
      expect(await closedWithin(fifth, 2_000)).toBe(true);
      over.destroy();
      for (const s of held) s.destroy();
      await waitUntil(() => t.hub.openConnections === 0, 2_000);
      expect(await refusals(t.url, "limits.maxConnections")).toBe(1);
    } finally {
      await t.stop();
    }
  });
});

describe("addresses that misbehave", () => {
  it("an address whose sessions were ended limits.maxRefusalsPerAddress times is refused at the door for the rest of the window, others are not", async () => {
    const t = await startTestHub({ metrics: { tokenHash: hashToken(SCRAPE_TOKEN) }, connectionLimits: { maxRefusalsPerAddress: 2 } });
    try {
      for (let i = 0; i < 2; i++) {
        const c = await rawH2(t.url, { from: "127.0.3.2" });
        await c.send(frame(FRAME.HEADERS, 0, 1, headerBlock(postHeaders("x"))));
        for (let n = 0; n < 100_000 && !c.seen.closed; n++) await c.send(frame(FRAME.CONTINUATION, 0, 1));
        expect(await waitUntil(() => c.seen.closed, 5_000)).toBe(true);
      }
      const barred = await connectFrom(t.url, "127.0.3.2");
      expect(await closedWithin(barred, 2_000)).toBe(true);
      const other = await connectFrom(t.url, "127.0.3.3");
      expect(await closedWithin(other, 300)).toBe(false);
      other.destroy();
      expect(await refusals(t.url, "limits.maxRefusalsPerAddress")).toBe(1);
    } finally {
      await t.stop();
    }
  });

  it("twenty requests refused for want of credentials count as one ended session: a 401 storm gets its address barred", async () => {
    const t = await startTestHub({
      ...tenantHubOptions({ acme: "acme-token" }, [{ id: "echo" }]),
      metrics: { tokenHash: hashToken(SCRAPE_TOKEN) },
      connectionLimits: { maxRefusalsPerAddress: 2 },
    });
    try {
      const c = await rawH2(t.url, { from: "127.0.3.4" });
      await waitUntil(() => false, 100);
      for (let i = 0; i < 40 && !c.seen.closed; i++) await c.open(1 + 2 * i, postHeaders("x", [["authorization", "Bearer wrong"]]));
      // The 40th refusal bars the address and ends its connection.
      expect(await waitUntil(() => c.seen.closed, 5_000)).toBe(true);
      const barred = await connectFrom(t.url, "127.0.3.4");
      expect(await closedWithin(barred, 2_000)).toBe(true);
      expect(await refusals(t.url, "unauthenticated")).toBe(40);
    } finally {
      await t.stop();
    }
  });
});

describe("refusals of requests", () => {
  it("requests without a valid token are counted in a2a_refusals_total as unauthenticated", async () => {
    const t = await startTestHub({
      ...tenantHubOptions({ acme: "acme-token" }, [{ id: "echo" }]),
      metrics: { tokenHash: hashToken(SCRAPE_TOKEN) },
    });
    try {
      for (let i = 0; i < 5; i++) {
        const res = await fetch(t.url, { method: "POST", headers: { "content-type": "application/json", authorization: "Bearer wrong" }, body: "{}" });
        expect(res.status).toBe(401);
      }
      expect(await refusals(t.url, "unauthenticated")).toBe(5);
    } finally {
      await t.stop();
    }
  });
});

describe("unauthenticated requests on a hub with tenants", () => {
  const t = withTestHub({ ...tenantHubOptions({ acme: "acme-token" }, [{ id: "echo" }]) });

  it.each([
    ["JSON-RPC", "/", "application/json"],
    ["REST", "/message:send", "application/json"],
    ["Connect", "/lf.a2a.v1.A2AService/SendMessage", "application/json"],
  ])("are refused over %s (HTTP/1.1) before their body is read: the 401 comes while the body is still owed", async (_binding, path, contentType) => {
    const socket = await rawConnection(t.hub.url);
    socket.write(postHead(t.hub.url, path, { "content-type": contentType, "content-length": String(1_000_000), authorization: "Bearer wrong" }));
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (d: string) => (text += d));
    expect(await waitUntil(() => /\r\n\r\n/.test(text), 5_000)).toBe(true);
    expect(text).toMatch(/^HTTP\/1\.1 401 /);
    socket.destroy();
  });

  it("are refused over gRPC before their body is read: UNAUTHENTICATED while the message is still owed", async () => {
    const session = http2.connect(t.hub.url);
    const stream = session.request({ ":method": "POST", ":path": "/lf.a2a.v1.A2AService/SendMessage", "content-type": "application/grpc", te: "trailers", authorization: "Bearer wrong" });
    stream.write(Buffer.from([0, 0, 0x0f, 0x42, 0x40])); // a 1,000,000-byte message announced, none of it sent
    const status = await new Promise<string>((resolve) => {
      stream.on("response", (h) => h["grpc-status"] !== undefined && resolve(String(h["grpc-status"])));
      stream.on("trailers", (h) => resolve(String(h["grpc-status"])));
      stream.on("error", () => resolve("error"));
      stream.resume();
    });
    expect(status).toBe("16");
    session.destroy();
  });
});
