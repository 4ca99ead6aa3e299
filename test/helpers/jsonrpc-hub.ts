import { createJsonRpcHandler, type JsonRpcHandlerOptions } from "../../src/bindings/jsonrpc/index.js";
import { handlerBase, startMountedHub, type HandlerMount } from "./mounted-hub.js";
import type { TestHub } from "./test-hub.js";

/** What a test mounts: a JSON-RPC handler of its own (options, a wrapped service) ahead of the hub's. */
export type JsonRpcMount = HandlerMount<JsonRpcHandlerOptions>;

/** A hub whose POST / is answered by a JSON-RPC handler built with the mount's options (everything else stays the hub's). */
export async function startJsonRpcHub(mount: JsonRpcMount = {}): Promise<TestHub> {
  return startMountedHub(
    mount.hub,
    (req) => req.method === "POST" && (req.url ?? "/").split("?")[0] === "/",
    (hub) => createJsonRpcHandler({ ...handlerBase(hub, mount.wrap), ...mount.handler }),
  );
}
