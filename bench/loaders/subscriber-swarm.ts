/**
 * Fan-out: many SubscribeToTask streams on one slow task, then one status
 * change, timed until every subscriber has it. Runs on the loader core and
 * speaks gRPC over h2c with plain node:http2, which costs little memory per
 * stream, spreading the streams over many connections as many clients would.
 *
 * Protocol with the parent: prints `READY <n>` once every stream has its
 * first event (the Task snapshot, §3.1.6), waits for `GO` on stdin (the
 * parent reads the server's RSS meanwhile), cancels the task and times the
 * CANCELED status to every stream, then prints the result.
 */
import * as http2 from "node:http2";
import { createInterface } from "node:readline";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import {
  CancelTaskRequestSchema,
  SendMessageRequestSchema,
  SendMessageResponseSchema,
  StreamResponseSchema,
  SubscribeToTaskRequestSchema,
  TaskState,
} from "a2a-hub";
import { benchMessage } from "../harness/a2a-clients.js";
import { grpcFrame, GrpcFrameReader } from "../harness/grpc-frames.js";
import { loaderConfig, printResult } from "../harness/loader-process.js";
import { GRPC_HEADERS } from "../harness/request-bodies.js";
import { quantile } from "../harness/stats.js";

interface Config {
  url: string;
  subscribers: number;
  streamsPerConnection: number;
  slowMs: number;
}

const config = loaderConfig<Config>();
const origin = new URL(config.url).origin;
const now = () => Number(process.hrtime.bigint()) / 1e6;
const path = (method: string) => `${new URL(config.url).pathname}lf.a2a.v1.A2AService/${method}`;

/** One unary gRPC call; resolves with the answer's bytes. */
function unary(session: http2.ClientHttp2Session, method: string, body: Uint8Array): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const req = session.request({ ":method": "POST", ":path": path(method), ...GRPC_HEADERS });
    const reader = new GrpcFrameReader();
    const messages: Buffer[] = [];
    let status: string | undefined;
    req.on("response", (h) => h["grpc-status"] !== undefined && (status = String(h["grpc-status"])));
    req.on("trailers", (t) => (status = String(t["grpc-status"])));
    req.on("data", (c: Buffer) => messages.push(...reader.push(c)));
    req.on("end", () => (status === "0" && messages[0] ? resolve(messages[0]) : reject(new Error(`${method}: grpc-status ${status}`))));
    req.on("error", reject);
    req.end(grpcFrame(body));
  });
}

interface Subscriber {
  firstAt: number;
  changedAt: number;
  ended: boolean;
  problem?: string;
}

function subscribe(session: http2.ClientHttp2Session, taskId: string, onFirst: () => void, onChange: () => void): Subscriber {
  const sub: Subscriber = { firstAt: NaN, changedAt: NaN, ended: false };
  const req = session.request({ ":method": "POST", ":path": path("SubscribeToTask"), ...GRPC_HEADERS });
  const reader = new GrpcFrameReader();
  let status: string | undefined;
  req.on("response", (h) => h["grpc-status"] !== undefined && (status = String(h["grpc-status"])));
  req.on("trailers", (t) => (status = String(t["grpc-status"])));
  req.on("data", (c: Buffer) => {
    for (const m of reader.push(c)) {
      const ev = fromBinary(StreamResponseSchema, m).payload;
      if (Number.isNaN(sub.firstAt)) {
        sub.firstAt = now();
        if (ev.case !== "task") sub.problem = `first event is ${ev.case}, not the Task`;
        onFirst();
      } else if (ev.case === "statusUpdate" && ev.value.status?.state === TaskState.CANCELED && Number.isNaN(sub.changedAt)) {
        sub.changedAt = now();
        onChange();
      }
    }
  });
  const end = (problem?: string) => {
    if (sub.ended) return;
    sub.ended = true;
    if (problem) sub.problem ??= problem;
    if (Number.isNaN(sub.firstAt)) onFirst();
    if (Number.isNaN(sub.changedAt)) onChange();
  };
  req.on("end", () => end(status === "0" ? undefined : `grpc-status ${status}`));
  req.on("error", (e) => end(e.message));
  req.end(grpcFrame(toBinary(SubscribeToTaskRequestSchema, create(SubscribeToTaskRequestSchema, { id: taskId }))));
  return sub;
}

function counter(target: number): { tick: () => void; done: Promise<void> } {
  let n = 0;
  let resolve!: () => void;
  const done = new Promise<void>((r) => (resolve = r));
  if (target === 0) resolve();
  return { tick: () => ++n === target && resolve(), done };
}

async function main(): Promise<void> {
  const control = http2.connect(origin);
  const send = create(SendMessageRequestSchema, {
    message: benchMessage(`slow ${config.slowMs}`),
    configuration: { returnImmediately: true },
  });
  const res = fromBinary(SendMessageResponseSchema, await unary(control, "SendMessage", toBinary(SendMessageRequestSchema, send)));
  if (res.payload.case !== "task") throw new Error("slow task: SendMessage did not answer a Task");
  const taskId = res.payload.value.id;

  const connections = Math.ceil(config.subscribers / config.streamsPerConnection);
  const sessions = Array.from({ length: connections }, () => http2.connect(origin, { maxSessionMemory: 64 }));
  const firsts = counter(config.subscribers);
  const changes = counter(config.subscribers);
  const t0 = now();
  const subs = Array.from({ length: config.subscribers }, (_, i) => subscribe(sessions[i % connections]!, taskId, firsts.tick, changes.tick));
  await firsts.done;
  const subscribeSec = (now() - t0) / 1000;
  const broken = subs.filter((s) => s.problem).length;
  process.stdout.write(`READY ${config.subscribers - broken}\n`);

  await new Promise<void>((resolve) => createInterface({ input: process.stdin }).on("line", (l) => l === "GO" && resolve()));
  const cancelAt = now();
  await unary(control, "CancelTask", toBinary(CancelTaskRequestSchema, create(CancelTaskRequestSchema, { id: taskId })));
  await Promise.race([changes.done, new Promise((r) => setTimeout(r, 120_000))]);
  const delays = subs.filter((s) => !Number.isNaN(s.changedAt)).map((s) => s.changedAt - cancelAt);
  const problems = subs.filter((s) => s.problem).map((s) => s.problem!);
  for (const s of sessions) s.destroy();
  control.destroy();
  printResult({
    subscribers: config.subscribers,
    connections,
    subscribeSec,
    received: delays.length,
    deliverFirstMs: Math.min(...delays),
    deliverAllMs: Math.max(...delays),
    deliverP50Ms: quantile(delays, 0.5),
    errors: subs.filter((s) => s.problem || Number.isNaN(s.changedAt)).length,
    problems: [...new Set(problems)].slice(0, 5),
  });
}

main().catch((e: unknown) => printResult({ error: e instanceof Error ? e.message : String(e) }));
