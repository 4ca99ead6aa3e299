import type { DescMethod, Message } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import { A2AService, type SendMessageRequest, type SubscribeToTaskRequest } from "../../../gen/a2a/v1/a2a_pb.js";
import type { A2AServiceApi, SequencedEvent } from "../../core/index.js";

type UnaryHandler = (req: Message, ctx: HandlerContext) => Promise<Message>;

/** Calls the service's unary method for an operation (the method of the same local name, §5.3). */
export function callUnary(service: A2AServiceApi, rpc: DescMethod, req: Message, ctx: HandlerContext): Promise<Message> {
  const handler = service[rpc.localName as keyof A2AServiceApi] as unknown as UnaryHandler | undefined;
  if (rpc.methodKind !== "unary" || typeof handler !== "function") throw new Error(`${rpc.name} is not a unary operation of the service`);
  return handler.call(service, req, ctx);
}

/** Opens an operation's stream with each event's sequence number (for SSE ids and Last-Event-ID resumption). */
export function openSequenced(service: A2AServiceApi, rpc: DescMethod, req: Message, ctx: HandlerContext, afterSeq?: number): AsyncIterable<SequencedEvent> {
  if (rpc === A2AService.method.sendStreamingMessage) return service.sendStreamingMessageSequenced(req as SendMessageRequest, ctx);
  if (rpc === A2AService.method.subscribeToTask) return service.subscribeSequenced(req as SubscribeToTaskRequest, ctx, afterSeq);
  throw new Error(`${rpc.name} is not a streaming operation of the service`);
}
