/**
 * The ceiling of the hub's RPC stack: connect-node on the hub's own
 * one-port host (createOnePortServer: HTTP/1.1 and h2c on one port),
 * answering SendMessage with a fixed completed echo Task over gRPC, Connect
 * and gRPC-Web. No store, no agent, no interceptors: what is left is the
 * price of the host and the library, so a hub row divided by this one says
 * how much of its stack's ceiling the hub reaches.
 *
 * Prints `READY {"port":n}` once listening on 127.0.0.1.
 */
import type { AddressInfo } from "node:net";
import { create } from "@bufbuild/protobuf";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { A2AService, createOnePortServer, SendMessageResponseSchema, TaskState } from "a2a-hub";
import { ECHO_TEXT } from "../harness/response-checks.js";

/** Built once: the answer is the same for every call (the checks only read the state and the echo). */
const ANSWER = create(SendMessageResponseSchema, {
  payload: {
    case: "task",
    value: {
      id: "00000000-0000-4000-8000-000000000000",
      contextId: "00000000-0000-4000-8000-000000000001",
      status: { state: TaskState.COMPLETED },
      artifacts: [{ artifactId: "echo", name: "echo", parts: [{ content: { case: "text", value: ECHO_TEXT } }] }],
    },
  },
});

const handler = connectNodeAdapter({
  routes: (router) => router.service(A2AService, { sendMessage: () => ANSWER }),
});
const server = createOnePortServer(handler);

server.net.listen(0, "127.0.0.1", () => {
  process.stdout.write(`READY ${JSON.stringify({ port: (server.net.address() as AddressInfo).port })}\n`);
});
const stop = (): void => {
  server.net.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 2_000).unref();
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
