import type { StreamResponse } from "../../gen/a2a/v1/a2a_pb.js";
import { A2AError } from "../protocol/index.js";
import { fromJsonRpcError } from "./binding-errors.js";
import { invalidResponse } from "./client-failure.js";
import type { ClientTransport, TransportCall } from "./client-transport.js";
import { httpCall, isEventStream, readJson, throwHttpError } from "./http-call.js";
import type { JsonRpcDialect, JsonRpcOp, JsonRpcStreamOp } from "./jsonrpc-dialects.js";
import { readSseJson } from "./sse-reader.js";
import { withEventId } from "./stream-event-id.js";

/**
 * §9: the JSON-RPC 2.0 binding. One POST per call to the interface URL;
 * streaming methods answer with text/event-stream, one JSON-RPC response
 * per event (§9.4.2). A JSON answer to a streaming method is an error that
 * came before the stream started.
 */
export class JsonRpcTransport implements ClientTransport {
  private nextId = 1;

  constructor(
    private readonly url: string,
    private readonly dialect: JsonRpcDialect,
    private readonly fetch?: typeof globalThis.fetch,
  ) {}

  send = (req: Parameters<ClientTransport["send"]>[0], call: TransportCall) => this.unary(this.dialect.send, req, call);
  get = (req: Parameters<ClientTransport["get"]>[0], call: TransportCall) => this.unary(this.dialect.get, req, call);
  cancel = (req: Parameters<ClientTransport["cancel"]>[0], call: TransportCall) => this.unary(this.dialect.cancel, req, call);
  stream = (req: Parameters<ClientTransport["stream"]>[0], call: TransportCall) => this.streaming(this.dialect.stream, req, call);
  subscribe = (req: Parameters<ClientTransport["subscribe"]>[0], call: TransportCall) => this.streaming(this.dialect.subscribe, req, call);

  list: ClientTransport["list"] = async (req, call) => this.unary(this.spoken(this.dialect.list, "ListTasks"), req, call);
  createPushConfig: ClientTransport["createPushConfig"] = async (req, call) => this.unary(this.spoken(this.dialect.createPushConfig, "CreateTaskPushNotificationConfig"), req, call);
  getPushConfig: ClientTransport["getPushConfig"] = async (req, call) => this.unary(this.spoken(this.dialect.getPushConfig, "GetTaskPushNotificationConfig"), req, call);
  listPushConfigs: ClientTransport["listPushConfigs"] = async (req, call) => this.unary(this.spoken(this.dialect.listPushConfigs, "ListTaskPushNotificationConfigs"), req, call);
  deletePushConfig: ClientTransport["deletePushConfig"] = async (req, call) => {
    await this.unary(this.spoken(this.dialect.deletePushConfig, "DeleteTaskPushNotificationConfig"), req, call);
  };
  extendedCard: ClientTransport["extendedCard"] = async (req, call) => this.unary(this.spoken(this.dialect.extendedCard, "GetExtendedAgentCard"), req, call);

  close(): void {}

  /** The dialect's method, or UnsupportedOperation where this client does not call it in that version (v0.3 has no ListTasks). */
  private spoken<Req, Res>(op: JsonRpcOp<Req, Res> | undefined, name: string): JsonRpcOp<Req, Res> {
    if (!op) throw new A2AError("UnsupportedOperation", `this client does not call ${name} over JSON-RPC A2A ${this.dialect.version}`);
    return op;
  }

  private envelope(method: string, params: unknown): { jsonrpc: "2.0"; id: number; method: string; params: unknown } {
    return { jsonrpc: "2.0", id: this.nextId++, method, params };
  }

  private async unary<Req, Res>(op: JsonRpcOp<Req, Res>, req: Req, call: TransportCall): Promise<Res> {
    const body = this.envelope(op.method, op.params(req));
    const response = await httpCall({ method: "POST", url: this.url, headers: { ...call.headers, accept: "application/json" }, body, signal: call.signal, fetch: this.fetch });
    if (!response.ok) await throwHttpError(response, true);
    return op.result(resultOf(await readJson(response, `the ${op.method} response`), body.id));
  }

  private async *streaming<Req>(op: JsonRpcStreamOp<Req>, req: Req, call: TransportCall): AsyncGenerator<StreamResponse> {
    const body = this.envelope(op.method, op.params(req));
    const response = await httpCall({ method: "POST", url: this.url, headers: { ...call.headers, accept: "text/event-stream" }, body, signal: call.signal, fetch: this.fetch });
    if (!response.ok) await throwHttpError(response, true);
    if (!isEventStream(response)) {
      // §9.4.2: an error found before the stream starts is a plain JSON-RPC response.
      const json = await readJson(response, `the ${op.method} response`);
      yield op.result(resultOf(json, body.id));
      return;
    }
    if (!response.body) throw invalidResponse(`the ${op.method} stream has no body`);
    for await (const { json, id } of readSseJson(response.body, `a ${op.method} event`)) {
      const result = resultOf(json, body.id);
      yield withEventId(op.result(result), id);
      if (op.last?.(result)) return;
    }
  }
}

/** §9: the result of a JSON-RPC response, or its error as an A2AError. */
function resultOf(json: unknown, id: number): unknown {
  if (typeof json !== "object" || json === null || Array.isArray(json)) throw invalidResponse("the JSON-RPC response is not an object");
  const r = json as { jsonrpc?: unknown; id?: unknown; result?: unknown; error?: unknown };
  if (r.error !== undefined && r.error !== null) throw fromJsonRpcError(r.error);
  if (!("result" in r)) throw invalidResponse("the JSON-RPC response has neither result nor error");
  // JSON-RPC 2.0 §5: the id echoes ours (null only for errors, handled above).
  if (r.id !== undefined && r.id !== id && String(r.id) !== String(id)) throw invalidResponse(`the JSON-RPC response answers id ${JSON.stringify(r.id)}, not ${id}`);
  return r.result;
}
