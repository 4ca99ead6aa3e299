import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as http from "node:http";
import * as net from "node:net";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";

let t: TestHub;
beforeAll(async () => {
  t = await startTestHub();
});
afterAll(async () => {
  await t.stop();
});

/** Writes `chunks` with pauses between them and returns the first bytes the server sends back. */
function exchange(chunks: readonly Buffer[], gapMs = 50): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(t.hub.port, "127.0.0.1");
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error("no answer"));
    }, 5_000);
    socket.once("data", (data) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(data);
    });
    socket.once("error", reject);
    socket.once("connect", async () => {
      for (const c of chunks) {
        socket.write(c);
        await new Promise((r) => setTimeout(r, gapMs));
      }
    });
  });
}

describe("one port for HTTP/1.1 and h2c", () => {
  it("an HTTP/2 preface that arrives in pieces still reaches the HTTP/2 server", async () => {
    const settings = Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]); // an empty SETTINGS frame
    const reply = await exchange([Buffer.from("PRI * HTTP/2.0\r\n"), Buffer.from("\r\nSM\r\n\r\n"), settings]);
    // The server's first frame is its SETTINGS frame (type 4 at byte 3).
    expect(reply[3]).toBe(4);
  });

  it("an HTTP/1.1 request that arrives in pieces reaches the HTTP/1.1 server", async () => {
    const reply = await exchange([Buffer.from("GE"), Buffer.from("T /.well-known/agent-card.json HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")]);
    expect(reply.toString("latin1")).toMatch(/^HTTP\/1\.1 200/);
  });

  it("a request starting like the preface but diverging is HTTP/1.1", async () => {
    const reply = await exchange([Buffer.from("P"), Buffer.from("OST /nowhere HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")]);
    expect(reply.toString("latin1")).toMatch(/^HTTP\/1\.1 404/);
  });
});

/** One answer over `agent`, with the local port of the connection it came on. */
function request(agent: http.Agent, method: string, path: string, body?: Buffer): Promise<{ status: number; connection?: string; json: any; localPort: number }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port: t.hub.port, method, path, agent, headers: body ? { "content-type": "application/json", "content-length": String(body.length) } : {} }, (res) => {
      const chunks: Buffer[] = [];
      const localPort = res.socket.localPort!;
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode!, connection: res.headers.connection, json: JSON.parse(Buffer.concat(chunks).toString("utf8")), localPort }));
    });
    // A body the server stopped reading may fail to finish writing: the answer is what counts.
    req.on("error", reject);
    req.end(body);
  });
}

describe("answers given before the body was read (RFC 9112 §9.6)", () => {
  it("bodiless requests keep their connection alive", async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const card = await request(agent, "GET", "/.well-known/agent-card.json");
      const missing = await request(agent, "GET", "/nowhere");
      expect([card.status, card.connection, missing.status, missing.connection]).toEqual([200, "keep-alive", 404, "keep-alive"]);
      expect(missing.localPort).toBe(card.localPort);
    } finally {
      agent.destroy();
    }
  });

  it.each([
    { what: "a small unread body is discarded and the connection serves the next request", bytes: 200 * 1024, connection: "keep-alive", reused: true },
    { what: "a large unread body gets Connection: close with the answer, which the client reads whole", bytes: 8 * 1024 * 1024, connection: "close", reused: false },
  ])("$what", async ({ bytes, connection, reused }) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      // The REST facade refuses an unknown path before it reads the body.
      const refused = await request(agent, "POST", "/nowhere/at/all", Buffer.alloc(bytes, " "));
      expect([refused.status, refused.connection, refused.json.error?.code]).toEqual([404, connection, 404]);
      const next = await request(agent, "GET", "/.well-known/agent-card.json");
      expect(next.status).toBe(200);
      expect(next.localPort === refused.localPort).toBe(reused);
    } finally {
      agent.destroy();
    }
  });

  it("a Connection: close refusal lingers: the client still sending meets no reset before it has read the answer", async () => {
    // Half-open, so that the client's side stays writable after the server's FIN, as a client busy uploading is.
    const socket = net.connect({ port: t.hub.port, host: "127.0.0.1", allowHalfOpen: true });
    let text = "";
    let error: Error | undefined;
    socket.setEncoding("latin1");
    socket.on("data", (d: string) => (text += d));
    socket.on("error", (e) => (error = e));
    const ended = new Promise<void>((resolve) => socket.once("end", resolve));
    await new Promise<void>((resolve) => socket.once("connect", resolve));
    const chunk = Buffer.alloc(64 * 1024, " ");
    const frame = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")]);
    socket.write("POST /nowhere/at/all HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n");
    socket.write(frame);
    await ended;
    expect(text).toMatch(/^HTTP\/1\.1 404 .*\r\nconnection: close\r\n/is);
    // Within the linger the server still takes the body and throws it away: no reset, no EPIPE.
    for (let i = 0; i < 16; i++) {
      socket.write(frame);
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(error).toBeUndefined();
    socket.destroy();
  });
});
