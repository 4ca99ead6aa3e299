/**
 * Baselines (b) and (c): the official TypeScript SDK (@a2a-js/sdk) serving
 * an echo agent that behaves like a2a-hub's for plain text (working, one
 * artifact echoing the text, completed), over JSON-RPC (express) and gRPC
 * (@grpc/grpc-js), with either its InMemoryTaskStore or its SQLite
 * DatabaseTaskStore (Kysely + better-sqlite3).
 *
 * Usage: tsx bench/servers/sdk-server.ts --store memory|sqlite [--db <file>]
 * Prints `READY {"jsonrpcPort":n,"grpcPort":m}` once both listen on 127.0.0.1.
 */
import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import express from "express";
import * as grpc from "@grpc/grpc-js";
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor, type TaskStore } from "@a2a-js/sdk/server";
import { jsonRpcHandler, UserBuilder } from "@a2a-js/sdk/server/express";
import { A2AService, grpcService } from "@a2a-js/sdk/server/grpc";
import type { AgentCard, Part } from "@a2a-js/sdk";
import { TaskState } from "@a2a-js/sdk";

const { values } = parseArgs({ options: { store: { type: "string", default: "memory" }, db: { type: "string" } } });

/** The SDK's TaskState/Role enums are numeric; the echo agent needs only these. */
const COMPLETED = TaskState.TASK_STATE_COMPLETED;
const WORKING = TaskState.TASK_STATE_WORKING;
const SUBMITTED = TaskState.TASK_STATE_SUBMITTED;

/** Echo: the same event sequence a2a-hub's echo agent emits for plain text. */
const echoExecutor: AgentExecutor = {
  async execute(ctx, bus) {
    const message = ctx.userMessage;
    const base = { taskId: ctx.taskId, contextId: ctx.contextId, metadata: undefined };
    const now = () => new Date().toISOString();
    if (!ctx.task) {
      bus.publish(
        AgentEvent.task({
          id: ctx.taskId,
          contextId: ctx.contextId,
          status: { state: SUBMITTED, message: undefined, timestamp: now() },
          history: [message],
          artifacts: [],
          metadata: undefined,
        }),
      );
    }
    bus.publish(AgentEvent.statusUpdate({ ...base, status: { state: WORKING, message: undefined, timestamp: now() } }));
    const parts: Part[] = message.parts;
    bus.publish(
      AgentEvent.artifactUpdate({
        ...base,
        artifact: { artifactId: "echo", name: "echo", description: "", parts, metadata: undefined, extensions: [] },
        append: false,
        lastChunk: true,
      }),
    );
    bus.publish(AgentEvent.statusUpdate({ ...base, status: { state: COMPLETED, message: undefined, timestamp: now() } }));
    bus.finished();
  },
  async cancelTask() {},
};

async function openStore(): Promise<TaskStore> {
  if (values.store === "memory") return new InMemoryTaskStore();
  if (values.store !== "sqlite" || !values.db) throw new Error("--store sqlite needs --db <file>");
  // Optional peers, loaded only for this store so the memory baseline needs none of them.
  const { Kysely, SqliteDialect } = await import("kysely");
  const { default: Database } = await import("better-sqlite3");
  const { DatabaseTaskStore } = await import("@a2a-js/sdk/server/database");
  const sqlite = new Database(values.db);
  // The same durability settings a2a-hub uses, so the comparison is like for like.
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  return new DatabaseTaskStore(new Kysely({ dialect: new SqliteDialect({ database: sqlite }) }));
}

function card(jsonrpcUrl: string, grpcUrl: string): AgentCard {
  return {
    name: "sdk echo",
    description: "SDK baseline echo agent",
    supportedInterfaces: [
      { url: jsonrpcUrl, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" },
      { url: grpcUrl, protocolBinding: "GRPC", tenant: "", protocolVersion: "1.0" },
    ],
    provider: undefined,
    version: "1.0.0",
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [{ id: "echo", name: "echo", description: "echoes", tags: ["echo"], examples: [], inputModes: [], outputModes: [], securityRequirements: [] }],
    signatures: [],
  };
}

async function main(): Promise<void> {
  const store = await openStore();
  const app = express();
  const http = await new Promise<import("node:http").Server>((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  http.keepAliveTimeout = 60_000;
  const jsonrpcPort = (http.address() as AddressInfo).port;
  const grpcServer = new grpc.Server();
  const grpcPort = await new Promise<number>((resolve, reject) =>
    grpcServer.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (e, port) => (e ? reject(e) : resolve(port))),
  );
  const handler = new DefaultRequestHandler(card(`http://127.0.0.1:${jsonrpcPort}/`, `127.0.0.1:${grpcPort}`), store, echoExecutor);
  app.use("/", jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  grpcServer.addService(A2AService, grpcService({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }) as never);
  process.stdout.write(`READY ${JSON.stringify({ jsonrpcPort, grpcPort, id: randomUUID() })}\n`);
  const stop = () => {
    http.closeAllConnections();
    http.close();
    grpcServer.forceShutdown();
    process.exit(0);
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

main().catch((e: unknown) => {
  process.stderr.write(`sdk-server: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
