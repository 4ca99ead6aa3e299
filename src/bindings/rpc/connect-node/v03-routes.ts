import { fromJson, toJson, type DescMessage, type JsonObject, type Message } from "@bufbuild/protobuf";
import type { ConnectRouter, HandlerContext, ServiceImpl } from "@connectrpc/connect";
import { callScopeKey, type A2AServiceApi, type Logger } from "../../../core/index.js";
import { dialectV1, V03_RPCS, V03Service, type V03Rpc } from "../../../protocol/index.js";
import { callUnary, openSequenced } from "../../http/index.js";
import { deadlineOf, toConnectError } from "../call/index.js";

/**
 * The v0.3 gRPC service (`a2a.v1.A2AService`, the v0.3 proto), registered on
 * the same connect router as lf.a2a.v1: its package differs, so both answer
 * on the one port. Every call is translated onto the one v1.0 service
 * through the v0.3 dialect (protocol/v03-rpcs.ts); errors carry the same
 * §5.4 status and ErrorInfo as v1.0 gRPC, which is how v0.3 clients read them.
 */
export function v03ConnectRoutes(service: A2AServiceApi, logger: Logger): (router: ConnectRouter) => void {
  const impl: Record<string, unknown> = {};
  for (const [name, v] of Object.entries(V03_RPCS)) {
    if (v.op.streaming) {
      impl[name] = async function* (req: Message, ctx: HandlerContext): AsyncGenerator<Message> {
        try {
          for await (const { event } of openSequenced(service, v.op.rpc, readRequest(v, req, ctx), ctx)) yield answer(v.rpc.output, v.toV03(event));
        } catch (e) {
          throw toConnectError(e, logger);
        }
        const deadline = deadlineOf(ctx);
        if (deadline) throw deadline;
      };
    } else {
      impl[name] = async (req: Message, ctx: HandlerContext): Promise<Message> => {
        try {
          return answer(v.rpc.output, v.toV03(await callUnary(service, v.op.rpc, readRequest(v, req, ctx), ctx)));
        } catch (e) {
          throw toConnectError(e, logger);
        }
      };
    }
  }
  return (router) => router.service(V03Service, impl as ServiceImpl<typeof V03Service>);
}

/**
 * The v1.0 request of a v0.3 call. v0.3 has no `tenant` field, so a v0.3
 * call cannot name an agent: it reaches the hub's default agent, as a v1.0
 * call without a tenant does on a hub of one agent.
 */
function readRequest(v: V03Rpc, req: Message, ctx: HandlerContext): Message {
  ctx.values.set(callScopeKey, { ...ctx.values.get(callScopeKey), tenantNamesAgent: false });
  const json = toJson(v.rpc.input, req as never) as JsonObject;
  return dialectV1.readV1(v.op.rpc.input, v.toV1(json), v.op.lenient);
}

/** The v0.3 answer message of its ProtoJSON (a shape it cannot hold is an internal error, logged by toConnectError). */
function answer(schema: DescMessage, json: JsonObject): Message {
  return fromJson(schema, json);
}
