import type { DescMethod, Message } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import { A2AService, type SendMessageRequest, type SubscribeToTaskRequest } from "../../../gen/a2a/v1/a2a_pb.js";
import type { A2AServiceApi, A2AWireAnswers, SequencedEvent } from "../../core/index.js";
import { wireJson, writeProtoJson } from "../../protocol/index.js";
import { RawJson } from "./raw-json.js";

type UnaryHandler = (req: Message, ctx: HandlerContext) => Promise<Message>;

/** Calls the service's unary method for an operation (the method of the same local name, §5.3). */
export function callUnary(service: A2AServiceApi, rpc: DescMethod, req: Message, ctx: HandlerContext): Promise<Message> {
  const handler = service[rpc.localName as keyof A2AServiceApi] as unknown as UnaryHandler | undefined;
  if (rpc.methodKind !== "unary" || typeof handler !== "function") throw new Error(`${rpc.name} is not a unary operation of the service`);
  return handler.call(service, req, ctx);
}

/** The RPCs whose answer the service also gives in protobuf binary, and the method that does (core/wire-answer.ts). */
const WIRE_ANSWERS: Readonly<Record<string, keyof A2AWireAnswers>> = { sendMessage: "sendMessageWire" };

/** The service method that answers an operation in protobuf binary, when it has one. */
export function wireMethodOf(rpc: DescMethod): keyof A2AWireAnswers | undefined {
  return WIRE_ANSWERS[rpc.localName];
}

/**
 * Calls a unary operation for a JSON binding (JSON-RPC v1.0, REST): its
 * answer as writeProtoJson writes it. An answer the service gives in
 * binary is written straight from its bytes (codec/json-from-binary.ts), the
 * same text without decoding it into a message first.
 */
export async function callUnaryJson(service: A2AServiceApi, rpc: DescMethod, req: Message, ctx: HandlerContext): Promise<unknown> {
  const wire = wireMethodOf(rpc);
  if (wire) return new RawJson(wireJson(rpc.output, (await service[wire](req as never, ctx)).bytes, { required: true }));
  return writeProtoJson(rpc.output, await callUnary(service, rpc, req, ctx));
}

/** Opens an operation's stream with each event's sequence number (for SSE ids and Last-Event-ID resumption). */
export function openSequenced(service: A2AServiceApi, rpc: DescMethod, req: Message, ctx: HandlerContext, afterSeq?: number): AsyncIterable<SequencedEvent> {
  if (rpc === A2AService.method.sendStreamingMessage) return service.sendStreamingMessageSequenced(req as SendMessageRequest, ctx);
  if (rpc === A2AService.method.subscribeToTask) return service.subscribeSequenced(req as SubscribeToTaskRequest, ctx, afterSeq);
  throw new Error(`${rpc.name} is not a streaming operation of the service`);
}
