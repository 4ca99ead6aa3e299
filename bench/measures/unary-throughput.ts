/**
 * Unary SendMessage throughput: the baselines and every a2a-hub binding, at
 * 1 and 32 concurrent connections, with requests/s, p50/p99, errors, the
 * server's CPU share and its RSS after the run. HTTP/1.1 load is autocannon,
 * h2 and gRPC load our Node h2 loader; every call is a new message (its own
 * messageId) and every answer is checked, and the tasks the server stored
 * are counted against the calls sent.
 */
import type { BenchContext } from "../harness/bench-context.js";
import { CONNECT_JSON_HEADERS, GRPC_HEADERS, GRPC_WEB_HEADERS, JSON_HEADERS, jsonRpcBody, PER_REQUEST_ID, sendMessageJson } from "../harness/request-bodies.js";
import { ECHO_TEXT } from "../harness/response-checks.js";
import type { UnaryRow } from "../harness/results.js";
import { startBareConnect, startBareNode, startHubChild, startSdk } from "../harness/servers-under-test.js";
import { emptyRow, failRow, RowSession, type Load, type RowSpec } from "./unary-row.js";

export type { Load, RowSpec } from "./unary-row.js";

const SDK = "@a2a-js/sdk 1.3.0";
const RPC_PATH = "lf.a2a.v1.A2AService/SendMessage";

/** The unary JSON-RPC (autocannon) and gRPC (h2 loader) SendMessage loads. */
export function unaryLoads(): { readonly jsonrpc: Load; readonly grpc: Load } {
  const jsonrpc = jsonRpcBody("SendMessage", sendMessageJson(ECHO_TEXT, PER_REQUEST_ID));
  return {
    jsonrpc: { tool: "autocannon", path: "", headers: JSON_HEADERS, body: jsonrpc, check: "jsonrpc-task" },
    grpc: { tool: "h2", path: RPC_PATH, headers: GRPC_HEADERS, kind: "grpc", onGrpcPort: true },
  };
}

/** Every row of the unary table, baselines first. */
export function rowSpecs(): RowSpec[] {
  const jsonrpc = jsonRpcBody("SendMessage", sendMessageJson(ECHO_TEXT, PER_REQUEST_ID));
  const rest = JSON.stringify(sendMessageJson(ECHO_TEXT, PER_REQUEST_ID));
  const grpc = unaryLoads().grpc;
  const grpcWeb: Load = { tool: "h2", path: RPC_PATH, headers: GRPC_WEB_HEADERS, kind: "grpc-web", onGrpcPort: false };
  const hub = (ctx: BenchContext) => startHubChild(ctx.pinning, ctx.freshDir("hub"));
  return [
    {
      id: "bare-node", group: "baseline", server: "bare node:http", binding: "small JSON POST (HTTP/1.1)", a2a: false,
      start: (ctx) => startBareNode(ctx.pinning),
      load: { tool: "autocannon", path: "", headers: { "content-type": "application/json" }, body: jsonrpc, check: "bare-json" },
    },
    // The hub's RPC stack without the hub: connect-node on the one-port host answering a fixed Task.
    {
      id: "bare-connect-h1", group: "baseline", server: "bare connect-node, one-port host, fixed Task", binding: "Connect unary JSON (HTTP/1.1)", a2a: false,
      start: (ctx) => startBareConnect(ctx.pinning),
      load: { tool: "autocannon", path: RPC_PATH, headers: CONNECT_JSON_HEADERS, body: rest, check: "task-wrapper" },
    },
    {
      id: "bare-connect-h2", group: "baseline", server: "bare connect-node, one-port host, fixed Task", binding: "Connect unary JSON (h2c)", a2a: false,
      start: (ctx) => startBareConnect(ctx.pinning),
      load: { tool: "h2", path: RPC_PATH, headers: CONNECT_JSON_HEADERS, kind: "connect-json", onGrpcPort: false },
    },
    {
      id: "bare-connect-grpc", group: "baseline", server: "bare connect-node, one-port host, fixed Task", binding: "gRPC SendMessage (h2c)", a2a: false,
      start: (ctx) => startBareConnect(ctx.pinning),
      load: grpc,
    },
    {
      id: "bare-connect-grpcweb", group: "baseline", server: "bare connect-node, one-port host, fixed Task", binding: "gRPC-Web SendMessage (h2c)", a2a: false,
      start: (ctx) => startBareConnect(ctx.pinning),
      load: grpcWeb,
    },
    {
      id: "sdk-memory-jsonrpc", group: "baseline", server: `${SDK} InMemoryTaskStore`, binding: "JSON-RPC SendMessage (HTTP/1.1)", a2a: true,
      start: (ctx) => startSdk(ctx.pinning, "memory", ctx.freshDir("sdk-memory")),
      load: { tool: "autocannon", path: "", headers: JSON_HEADERS, body: jsonrpc, check: "jsonrpc-task" },
    },
    {
      id: "sdk-memory-grpc", group: "baseline", server: `${SDK} InMemoryTaskStore`, binding: "gRPC SendMessage (h2c)", a2a: true,
      start: (ctx) => startSdk(ctx.pinning, "memory", ctx.freshDir("sdk-memory")),
      load: grpc,
    },
    {
      id: "sdk-sqlite-jsonrpc", group: "baseline", server: `${SDK} DatabaseTaskStore (SQLite)`, binding: "JSON-RPC SendMessage (HTTP/1.1)", a2a: true,
      start: (ctx) => startSdk(ctx.pinning, "sqlite", ctx.freshDir("sdk-sqlite")),
      load: { tool: "autocannon", path: "", headers: JSON_HEADERS, body: jsonrpc, check: "jsonrpc-task" },
    },
    {
      id: "sdk-sqlite-grpc", group: "baseline", server: `${SDK} DatabaseTaskStore (SQLite)`, binding: "gRPC SendMessage (h2c)", a2a: true,
      start: (ctx) => startSdk(ctx.pinning, "sqlite", ctx.freshDir("sdk-sqlite")),
      load: grpc,
    },
    {
      id: "hub-jsonrpc", group: "a2a-hub", server: "a2a-hub, durable SQLite", binding: "JSON-RPC SendMessage (HTTP/1.1)", a2a: true, optional: true,
      start: hub,
      load: { tool: "autocannon", path: "", headers: JSON_HEADERS, body: jsonrpc, check: "jsonrpc-task" },
    },
    {
      id: "hub-rest", group: "a2a-hub", server: "a2a-hub, durable SQLite", binding: "REST POST /message:send (HTTP/1.1)", a2a: true, optional: true,
      start: hub,
      load: { tool: "autocannon", path: "message:send", headers: JSON_HEADERS, body: rest, check: "task-wrapper" },
    },
    {
      id: "hub-connect-h1", group: "a2a-hub", server: "a2a-hub, durable SQLite", binding: "Connect unary JSON (HTTP/1.1)", a2a: true,
      start: hub,
      load: { tool: "autocannon", path: RPC_PATH, headers: CONNECT_JSON_HEADERS, body: rest, check: "task-wrapper" },
    },
    {
      id: "hub-connect-h2", group: "a2a-hub", server: "a2a-hub, durable SQLite", binding: "Connect unary JSON (h2c)", a2a: true,
      start: hub,
      load: { tool: "h2", path: RPC_PATH, headers: CONNECT_JSON_HEADERS, kind: "connect-json", onGrpcPort: false },
    },
    {
      id: "hub-grpc", group: "a2a-hub", server: "a2a-hub, durable SQLite", binding: "gRPC SendMessage (h2c)", a2a: true,
      start: hub,
      load: grpc,
    },
    {
      id: "hub-grpcweb", group: "a2a-hub", server: "a2a-hub, durable SQLite", binding: "gRPC-Web SendMessage (h2c)", a2a: true,
      start: hub,
      load: grpcWeb,
    },
    // The same calls through the client stacks users run: grpc-js (the SDK's GrpcTransport) and connect-node.
    {
      id: "sdk-memory-grpc-grpcjs", group: "baseline", server: `${SDK} InMemoryTaskStore`, binding: "gRPC SendMessage (h2c)", a2a: true,
      start: (ctx) => startSdk(ctx.pinning, "memory", ctx.freshDir("sdk-memory")),
      load: { tool: "client", stack: "grpc-js", onGrpcPort: true },
    },
    {
      id: "hub-grpc-grpcjs", group: "a2a-hub", server: "a2a-hub, durable SQLite", binding: "gRPC SendMessage (h2c)", a2a: true,
      start: hub,
      load: { tool: "client", stack: "grpc-js", onGrpcPort: true },
    },
    {
      id: "hub-grpc-connect", group: "a2a-hub", server: "a2a-hub, durable SQLite", binding: "gRPC SendMessage (h2c)", a2a: true,
      start: hub,
      load: { tool: "client", stack: "connect-grpc", onGrpcPort: true },
    },
    {
      id: "hub-connect-h2-connect", group: "a2a-hub", server: "a2a-hub, durable SQLite", binding: "Connect unary JSON (h2c)", a2a: true,
      start: hub,
      load: { tool: "client", stack: "connect-h2", onGrpcPort: false },
    },
    {
      id: "hub-grpcweb-connect", group: "a2a-hub", server: "a2a-hub, durable SQLite", binding: "gRPC-Web SendMessage (h2c)", a2a: true,
      start: hub,
      load: { tool: "client", stack: "connect-grpcweb", onGrpcPort: false },
    },
    // connect-node's clients against connect-node answering a fixed Task: what the client stack reaches on its one core with the least server.
    {
      id: "bare-connect-h2-connect", group: "baseline", server: "bare connect-node, one-port host, fixed Task", binding: "Connect unary JSON (h2c)", a2a: false,
      start: (ctx) => startBareConnect(ctx.pinning),
      load: { tool: "client", stack: "connect-h2", onGrpcPort: false },
    },
    {
      id: "bare-connect-grpcweb-connect", group: "baseline", server: "bare connect-node, one-port host, fixed Task", binding: "gRPC-Web SendMessage (h2c)", a2a: false,
      start: (ctx) => startBareConnect(ctx.pinning),
      load: { tool: "client", stack: "connect-grpcweb", onGrpcPort: false },
    },
  ];
}

/** Measures one row end to end on a server of its own; failures are recorded, not thrown. */
export async function measureRow(ctx: BenchContext, spec: RowSpec): Promise<UnaryRow> {
  const row = emptyRow(spec);
  ctx.log(`unary: ${spec.server} / ${spec.binding}`);
  let session: RowSession | undefined;
  try {
    session = await RowSession.open(ctx, spec, row);
    if (!session) return row;
    for (const c of ctx.options.connections) row.cells.push(await session.load(ctx, c));
    await session.check();
  } catch (e) {
    failRow(ctx, row, e);
  } finally {
    await session?.stop();
  }
  return row;
}

/** Runs every row in turn, each on a fresh server process. */
export async function measureUnary(ctx: BenchContext, only?: (id: string) => boolean): Promise<UnaryRow[]> {
  const rows: UnaryRow[] = [];
  for (const spec of rowSpecs()) {
    if (only && !only(spec.id)) continue;
    rows.push(await measureRow(ctx, spec));
  }
  return rows;
}
