import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as net from "node:net";
import { startTestHub, type TestHub } from "./helpers/test-hub.js";

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
