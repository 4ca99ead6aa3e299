/**
 * Reads SendStreamingMessage streams as a client would, in its own process
 * on the loader core: one long `stream <n>` per run (events/s, time to
 * first event), then many short streams one after another (time to first
 * event p50/p99). Every event is decoded and the stream must end with the
 * task COMPLETED after exactly n artifact chunks.
 *
 * Modes: "grpc" (server streaming over h2c) and "sse" (JSON-RPC
 * SendStreamingMessage, text/event-stream over HTTP/1.1).
 */
import * as http from "node:http";
import * as http2 from "node:http2";
import { fromBinary } from "@bufbuild/protobuf";
import { StreamResponseSchema, TaskState } from "a2a-hub";
import { GrpcFrameReader } from "../harness/grpc-frames.js";
import { loaderConfig, printResult } from "../harness/loader-process.js";
import { GRPC_HEADERS, JSON_HEADERS, jsonRpcBody, sendMessageGrpcFrame, sendMessageJson } from "../harness/request-bodies.js";
import { quantile } from "../harness/stats.js";

interface Config {
  mode: "grpc" | "sse";
  /** Base URL of the server, ending in "/". */
  url: string;
  chunks: number;
  /** Seconds of untimed long streams first (at least one): a fresh server's first streams run before V8 has optimized its path. */
  warmupSec: number;
  runs: number;
  firstEventSamples: number;
}

/** One stream as the client saw it. */
interface StreamReading {
  events: number;
  artifacts: number;
  finalState: string;
  firstEventMs: number;
  totalMs: number;
  /** Set when the stream broke or the server refused it. */
  problem?: string;
  notServed?: boolean;
}

const config = loaderConfig<Config>();
const now = () => Number(process.hrtime.bigint()) / 1e6;

/** Tallies events of either wire form into one reading. */
class Tally {
  readonly t0 = now();
  events = 0;
  artifacts = 0;
  finalState = "none";
  firstAt = NaN;
  lastAt = NaN;
  see(kind: string | undefined, state?: string): void {
    const t = now();
    if (this.events === 0) this.firstAt = t;
    this.lastAt = t;
    this.events++;
    if (kind === "artifactUpdate") this.artifacts++;
    if (kind === "statusUpdate" && state) this.finalState = state;
  }
  reading(problem?: string): StreamReading {
    return { events: this.events, artifacts: this.artifacts, finalState: this.finalState, firstEventMs: this.firstAt - this.t0, totalMs: this.lastAt - this.t0, problem };
  }
}

let session: http2.ClientHttp2Session | undefined;

function grpcStream(text: string): Promise<StreamReading> {
  session ??= http2.connect(new URL(config.url).origin);
  const s = session;
  return new Promise((resolve) => {
    const tally = new Tally();
    const reader = new GrpcFrameReader();
    let grpcStatus: string | undefined;
    let httpStatus = 0;
    const req = s.request({ ":method": "POST", ":path": `${new URL(config.url).pathname}lf.a2a.v1.A2AService/SendStreamingMessage`, ...GRPC_HEADERS });
    req.on("response", (h) => {
      httpStatus = Number(h[":status"]);
      if (h["grpc-status"] !== undefined) grpcStatus = String(h["grpc-status"]);
    });
    req.on("trailers", (t) => (grpcStatus = String(t["grpc-status"])));
    req.on("data", (chunk: Buffer) => {
      for (const m of reader.push(chunk)) {
        const ev = fromBinary(StreamResponseSchema, m);
        const p = ev.payload;
        tally.see(p.case, p.case === "statusUpdate" ? TaskState[p.value.status?.state ?? 0] : undefined);
      }
    });
    req.on("end", () => resolve(tally.reading(httpStatus === 404 ? "404" : grpcStatus === "0" ? undefined : `grpc-status ${grpcStatus}`)));
    req.on("error", (e) => resolve(tally.reading(e.message)));
    req.end(sendMessageGrpcFrame(text));
  });
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function sseStream(text: string): Promise<StreamReading> {
  return new Promise((resolve) => {
    const tally = new Tally();
    const body = jsonRpcBody("SendStreamingMessage", sendMessageJson(text));
    const req = http.request(config.url, { method: "POST", agent, headers: { ...JSON_HEADERS, accept: "text/event-stream", "content-length": Buffer.byteLength(body) } }, (res) => {
      if (res.statusCode !== 200 || !String(res.headers["content-type"]).startsWith("text/event-stream")) {
        let t = "";
        res.on("data", (c: Buffer) => (t += c.toString()));
        res.on("end", () => {
          const r = tally.reading(res.statusCode === 404 ? "404" : `HTTP ${res.statusCode} ${res.headers["content-type"]}: ${t.slice(0, 200)}`);
          resolve({ ...r, notServed: res.statusCode === 404 });
        });
        return;
      }
      let pending = "";
      let problem: string | undefined;
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        pending += chunk;
        let end: number;
        while ((end = pending.indexOf("\n\n")) >= 0) {
          const block = pending.slice(0, end);
          pending = pending.slice(end + 2);
          const data = block
            .split("\n")
            .filter((l) => l.startsWith("data:"))
            .map((l) => l.slice(5).trimStart())
            .join("\n");
          if (!data) continue;
          const msg = JSON.parse(data) as { result?: Record<string, { status?: { state?: string } }>; error?: unknown };
          if (msg.error || !msg.result) {
            problem ??= `error event: ${data.slice(0, 200)}`;
            continue;
          }
          const kind = Object.keys(msg.result).find((k) => k === "task" || k === "message" || k === "statusUpdate" || k === "artifactUpdate");
          tally.see(kind, kind === "statusUpdate" ? msg.result.statusUpdate?.status?.state?.replace(/^TASK_STATE_/, "") : undefined);
        }
      });
      res.on("end", () => resolve(tally.reading(problem)));
      res.on("error", (e) => resolve(tally.reading(e.message)));
    });
    req.on("error", (e) => resolve(tally.reading(e.message)));
    req.end(body);
  });
}

/** Why a stream of `stream n` is not what the echo agent promises, or undefined. */
function streamProblem(r: StreamReading, n: number): string | undefined {
  if (r.problem) return r.problem;
  if (r.artifacts !== n) return `${r.artifacts} artifact events, expected ${n}`;
  if (r.finalState !== "COMPLETED") return `stream ended in state ${r.finalState}`;
  return undefined;
}

async function main(): Promise<void> {
  const read = config.mode === "grpc" ? grpcStream : sseStream;
  const probe = await read("stream 1");
  if (probe.notServed || probe.problem === "404") return printResult({ notServed: true });
  const probeProblem = streamProblem(probe, 1);
  if (probeProblem) return printResult({ error: `probe stream: ${probeProblem}` });
  const long: Array<StreamReading & { eventsPerSec: number; clientCpu: number }> = [];
  let errors = 0;
  const problems: string[] = [];
  const warmUntil = now() + config.warmupSec * 1000;
  do {
    const p = streamProblem(await read(`stream ${config.chunks}`), config.chunks);
    if (p) {
      errors++;
      problems.push(`warm-up: ${p}`);
    }
  } while (now() < warmUntil);
  for (let i = 0; i < config.runs; i++) {
    const cpu0 = process.cpuUsage();
    const r = await read(`stream ${config.chunks}`);
    const cpu = process.cpuUsage(cpu0);
    const p = streamProblem(r, config.chunks);
    if (p) {
      errors++;
      problems.push(p);
    }
    // The client's own CPU share: near 1.0 would mean the reader, not the server, set the pace.
    long.push({ ...r, eventsPerSec: r.events / (r.totalMs / 1000), clientCpu: (cpu.user + cpu.system) / 1000 / r.totalMs });
  }
  const firsts: number[] = [];
  for (let i = 0; i < config.firstEventSamples; i++) {
    const r = await read("stream 1");
    const p = streamProblem(r, 1);
    if (p) {
      errors++;
      problems.push(p);
    } else firsts.push(r.firstEventMs);
  }
  session?.close();
  printResult({
    long,
    firstEventP50Ms: quantile(firsts, 0.5),
    firstEventP99Ms: quantile(firsts, 0.99),
    firstEventSamples: firsts.length,
    errors,
    problems: problems.slice(0, 5),
  });
}

main().catch((e: unknown) => printResult({ error: e instanceof Error ? e.message : String(e) }));
