import { describe, expect, it } from "vitest";
import { A2AService } from "../../../gen/a2a/v1/a2a_pb.js";
import { lookupMethod, methodNames } from "../../../src/bindings/jsonrpc/index.js";
import { REST_ROUTES } from "../../../src/bindings/rest/index.js";
import { JSONRPC_V03, JSONRPC_V1 } from "../../../src/client/jsonrpc-dialects.js";
import { OPERATION_LIST, OPERATIONS } from "../../../src/protocol/index.js";

/*
 * §5.3: one operation table (src/protocol/operations.ts) keyed by the
 * service method; the JSON-RPC methods of both dialects, the REST routes and
 * the client's dialects are derived from it, so none can name an operation
 * another binding lacks.
 */
describe("the one operation table", () => {
  it("has one row per A2AService method", () => {
    expect(Object.keys(OPERATIONS).sort()).toEqual(Object.keys(A2AService.method).sort());
    for (const [name, op] of Object.entries(OPERATIONS)) expect(op.rpc.localName).toBe(name);
  });

  it("is what the JSON-RPC endpoint serves: every v1.0 and v0.3 name, on the operation's RPC, and nothing else", () => {
    const expected = OPERATION_LIST.flatMap((op) => [op.jsonRpc.v1, ...(op.jsonRpc.v03 ? [op.jsonRpc.v03] : [])]);
    expect(methodNames().sort()).toEqual(expected.sort());
    for (const op of OPERATION_LIST) {
      expect(lookupMethod(op.jsonRpc.v1)?.rpc).toBe(op.rpc);
      expect(lookupMethod(op.jsonRpc.v1)?.kind).toBe(op.streaming ? "stream" : "unary");
      if (op.jsonRpc.v03) expect(lookupMethod(op.jsonRpc.v03)?.rpc).toBe(op.rpc);
    }
  });

  it("carries the v0.3 dialect of exactly the operations v0.3 had, both ways for those the client calls", () => {
    for (const op of OPERATION_LIST) expect(op.v03 !== undefined, op.rpc.name).toBe(op.jsonRpc.v03 !== undefined);
    for (const op of [OPERATIONS.sendMessage, OPERATIONS.sendStreamingMessage, OPERATIONS.getTask, OPERATIONS.cancelTask, OPERATIONS.subscribeToTask]) {
      expect(typeof op.v03?.toV03Params, op.rpc.name).toBe("function");
      expect(typeof op.v03?.toV1Result, op.rpc.name).toBe("function");
    }
  });

  it("is what the REST binding routes: each operation's verbs and paths, on its RPC", () => {
    const routes = REST_ROUTES.map((r) => `${r.method} ${r.template.source} ${r.rpc.name}`);
    const expected = OPERATION_LIST.flatMap((op) => op.rest.map((r) => `${r.verb} ${r.path} ${op.rpc.name}`));
    expect(routes).toEqual(expected);
  });

  it("names the client's JSON-RPC methods", () => {
    expect([JSONRPC_V1.send, JSONRPC_V1.stream, JSONRPC_V1.get, JSONRPC_V1.list!, JSONRPC_V1.cancel, JSONRPC_V1.subscribe].map((m) => m.method)).toEqual(
      [OPERATIONS.sendMessage, OPERATIONS.sendStreamingMessage, OPERATIONS.getTask, OPERATIONS.listTasks, OPERATIONS.cancelTask, OPERATIONS.subscribeToTask].map((op) => op.jsonRpc.v1),
    );
    expect([JSONRPC_V03.send, JSONRPC_V03.stream, JSONRPC_V03.get, JSONRPC_V03.cancel, JSONRPC_V03.subscribe].map((m) => m.method)).toEqual(
      [OPERATIONS.sendMessage, OPERATIONS.sendStreamingMessage, OPERATIONS.getTask, OPERATIONS.cancelTask, OPERATIONS.subscribeToTask].map((op) => op.jsonRpc.v03),
    );
  });
});
