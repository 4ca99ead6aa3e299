/**
 * HTTP/2 unary load (gRPC, or Connect unary JSON over h2c), run in its own
 * process pinned to the loader core. Each connection is one h2c session
 * with one call in flight.
 *
 * Every call carries a new messageId: a resend of one would be answered
 * from the hub's record of the first (§3.3.1) and measure nothing. So the
 * body is built per call, which a file-fed C loader cannot do. Every answer
 * is checked (HTTP status, gRPC status, the decoded completed echo task);
 * a wrong one counts as an error, not as a call served.
 *
 * Config (argv[2], JSON): url (with the RPC path), kind, headers,
 * connections, warmupSec, durationSec, runs. Prints `MARK start|end <i>`
 * around each timed run, like the autocannon loader, then the result.
 */
import * as http2 from "node:http2";
import { exchangeProblem } from "../harness/h2-probe.js";
import { loaderConfig, printResult, runTimed, timedCalls } from "../harness/loader-process.js";
import { h2Body, type H2Kind } from "../harness/request-bodies.js";

interface Config {
  url: string;
  kind: H2Kind;
  headers: Record<string, string>;
  connections: number;
  warmupSec: number;
  durationSec: number;
  runs: number;
}

const config = loaderConfig<Config>();
const target = new URL(config.url);

/** One call on `session`; resolves with why its answer is wrong, or undefined. */
function call(session: http2.ClientHttp2Session): Promise<string | undefined> {
  return new Promise((resolve) => {
    const req = session.request({ ":method": "POST", ":path": target.pathname, ...config.headers });
    let status = 0;
    let grpcStatus: string | undefined;
    const chunks: Buffer[] = [];
    req.on("response", (h) => {
      status = Number(h[":status"]);
      if (h["grpc-status"] !== undefined) grpcStatus = String(h["grpc-status"]);
    });
    req.on("trailers", (t) => {
      if (t["grpc-status"] !== undefined) grpcStatus = String(t["grpc-status"]);
    });
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(exchangeProblem(config.kind, { status, grpcStatus, body: Buffer.concat(chunks) })));
    req.on("error", (e) => resolve(e.message));
    req.end(h2Body(config.kind));
  });
}

function connect(): Promise<http2.ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    const s = http2.connect(target.origin);
    s.once("connect", () => resolve(s));
    s.once("error", reject);
  });
}

async function main(): Promise<void> {
  const sessions = await Promise.all(Array.from({ length: config.connections }, connect));
  try {
    await runTimed(config, (sec) => timedCalls(sessions.map((s) => () => call(s)), sec));
  } finally {
    for (const s of sessions) s.close();
  }
}

main().catch((e: unknown) => printResult({ error: e instanceof Error ? e.message : String(e) }));
