import { ConnectError, createClient, Code, type Client, type Interceptor, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, expect } from "vitest";
import { A2AService, type StreamResponse } from "../../gen/a2a/v1/a2a_pb.js";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { A2AClient, fromConnectError, readSse, type BindingName, type ClientOptions } from "../../src/client/index.js";
import { A2A_ERROR_DOMAIN, A2AError, isA2AError, type A2AErrorName } from "../../src/protocol/index.js";
import { A2A_SPECIFIC, SPEC_ERRORS, upperSnake } from "./spec-errors.js";

/**
 * The one way tests reach a hub over every binding: the project's own
 * client (src/client) for the bindings it speaks (JSON-RPC, HTTP+JSON,
 * gRPC), connect-node's transports for Connect (HTTP/1.1 and h2) and
 * gRPC-Web, which it does not. Every binding answers in the same shape
 * (the A2AClient operations, errors as A2AError by name), so one table
 * states a rule once for all of them.
 */
export const BINDINGS = ["jsonrpc", "rest", "grpc", "connect-h1", "connect-h2", "grpc-web"] as const;
export type Binding = (typeof BINDINGS)[number];

/** The connect-node transports, for the operations src/client does not offer (push configs, the extended card) and for raw gRPC/Connect. */
export const CONNECT_NODE_BINDINGS = ["connect-h1", "connect-h2", "grpc", "grpc-web"] as const;
export type ConnectNodeBinding = (typeof CONNECT_NODE_BINDINGS)[number];

/** What a refusal looked like on the wire: the binding's own code and the ErrorInfo reasons and domains (§9.5, §10.6, §11.6). */
export interface WireRefusal {
  /** "jsonrpc -32001", "http 404" or "grpc NOT_FOUND". */
  readonly code: string;
  readonly reasons: readonly string[];
  readonly domains: readonly string[];
}

/** The A2A operations over one binding, with the last refusal it saw on the wire. */
export interface HubClient extends Pick<A2AClient, "send" | "stream" | "get" | "list" | "cancel" | "subscribe" | "close"> {
  readonly binding: Binding;
  /** The last refusal seen on the wire since `forget()`. */
  readonly refusal: WireRefusal | undefined;
  forget(): void;
}

/** A connect-node transport of `name` to a hub's root URL, with `interceptors`. */
export function connectNodeTransport(baseUrl: string, name: ConnectNodeBinding, interceptors: Interceptor[] = []): Transport {
  const url = baseUrl.replace(/\/$/, "");
  if (name === "connect-h1") return createConnectTransport({ baseUrl: url, httpVersion: "1.1", interceptors });
  if (name === "connect-h2") return createConnectTransport({ baseUrl: url, httpVersion: "2", interceptors });
  if (name === "grpc") return createGrpcTransport({ baseUrl: url, interceptors });
  return createGrpcWebTransport({ baseUrl: url, httpVersion: "1.1", interceptors });
}

/** A client of the hub at `url` (its root, whose card names the interfaces) over `binding`. */
export async function hubClient(url: string, binding: Binding, options: Omit<ClientOptions, "bindings" | "fetch" | "grpc"> = {}): Promise<HubClient> {
  const wire = new WireLog();
  if (binding === "jsonrpc" || binding === "rest" || binding === "grpc") {
    const client = await A2AClient.connect(url, { timeoutMs: 20_000, ...options, bindings: [binding as BindingName], fetch: wire.fetch(binding), grpc: { interceptors: [wire.interceptor] } });
    return wire.client(binding, client);
  }
  const rpc = createClient(A2AService, connectNodeTransport(url, binding, [wire.interceptor, bearer(options)]));
  return wire.client(binding, connectNodeOperations(rpc));
}

/** A HubClient opened before the enclosing describe's tests and closed after them; read it as `.client` inside the tests. */
export function withHubClient(hub: () => { readonly url: string }, binding: Binding): { readonly client: HubClient } {
  const state = {} as { client: HubClient };
  beforeAll(async () => {
    state.client = await hubClient(hub().url, binding);
  });
  afterAll(() => state.client?.close());
  return state;
}

/**
 * Runs `call` and expects it refused as `name`: an A2AError of that name
 * to the caller, and on the wire the binding's code of §5.4's table with
 * one ErrorInfo of that reason in the A2A domain. Returns the error.
 */
export async function expectRefusal(client: HubClient, call: () => Promise<unknown>, name: A2AErrorName): Promise<A2AError> {
  client.forget();
  const caught = await call().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(caught, `expected ${name} over ${client.binding}`).toBeInstanceOf(A2AError);
  const error = caught as A2AError;
  expect(error.a2a, error.message).toBe(name);
  const spec = SPEC_ERRORS[name];
  const json = client.binding === "jsonrpc" || client.binding === "rest";
  const code = client.binding === "jsonrpc" ? `jsonrpc ${spec.jsonRpc}` : client.binding === "rest" ? `http ${spec.http}` : `grpc ${spec.grpc}`;
  // §9.5, §11.6: the JSON bindings carry an ErrorInfo for the A2A-specific errors only; gRPC and Connect for every one (§10.6).
  const info = !json || A2A_SPECIFIC.includes(name);
  const wire = { code, reasons: info ? [upperSnake(name)] : [], domains: info ? [A2A_ERROR_DOMAIN] : [] };
  // A stream's error event is read beside the client, so it may be noted just after the client threw.
  await expect.poll(() => client.refusal, { message: `the wire answer of ${client.binding}`, timeout: 5_000 }).toEqual(wire);
  return error;
}

/** The field names an InvalidParams error names (§3.3.2). */
export function violatedFields(error: A2AError): string[] {
  return error.violations.map((v) => v.field);
}

type Operations = Pick<A2AClient, "send" | "stream" | "get" | "list" | "cancel" | "subscribe" | "close">;

/** The A2AClient operations over a connect-node client, its errors read by src/client's own reader. */
function connectNodeOperations(rpc: Client<typeof A2AService>): Operations {
  const unary = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (e) {
      throw isA2AError(e) ? e : fromConnectError(ConnectError.from(e));
    }
  };
  async function* streaming(fn: () => AsyncIterable<StreamResponse>): AsyncGenerator<StreamResponse> {
    try {
      yield* fn();
    } catch (e) {
      throw isA2AError(e) ? e : fromConnectError(ConnectError.from(e));
    }
  }
  const id = (ref: string | { id?: string }) => (typeof ref === "string" ? { id: ref } : ref);
  return {
    send: (req, call) => unary(() => rpc.sendMessage(req, call)),
    stream: (req, call) => streaming(() => rpc.sendStreamingMessage(req, call)),
    get: (ref, call) => unary(() => rpc.getTask(id(ref), call)),
    list: (req, call) => unary(() => rpc.listTasks(req ?? {}, call)),
    cancel: (ref, call) => unary(() => rpc.cancelTask(id(ref), call)),
    subscribe: (ref, call) => streaming(() => rpc.subscribeToTask(id(ref), call)),
    close: () => undefined,
  };
}

/** ClientOptions' bearer token on a connect-node transport (§7.3). */
function bearer(options: ClientOptions): Interceptor {
  return (next) => (req) => {
    if (options.token) req.header.set("authorization", `Bearer ${options.token}`);
    return next(req);
  };
}

/** Records the refusals a client's exchanges carry, read from the wire beside the client. */
class WireLog {
  last: WireRefusal | undefined;

  client(binding: Binding, ops: Operations): HubClient {
    const log = this;
    return {
      binding,
      get refusal() {
        return log.last;
      },
      forget: () => (log.last = undefined),
      send: ops.send.bind(ops),
      stream: ops.stream.bind(ops),
      get: ops.get.bind(ops),
      list: ops.list.bind(ops),
      cancel: ops.cancel.bind(ops),
      subscribe: ops.subscribe.bind(ops),
      close: ops.close.bind(ops),
    };
  }

  private noteConnect(e: unknown): void {
    if (!(e instanceof ConnectError)) return;
    const infos = e.findDetails(ErrorInfoSchema);
    const name = (Code[e.code] ?? "Unknown").replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase();
    this.last = { code: `grpc ${name}`, reasons: infos.map((i) => i.reason), domains: infos.map((i) => i.domain) };
  }

  private noteJson(code: string, details: unknown): void {
    const infos = (Array.isArray(details) ? details : []).filter((d) => typeof d?.reason === "string");
    this.last = { code, reasons: infos.map((i) => i.reason), domains: infos.map((i) => i.domain) };
  }

  /** Sees every gRPC/Connect call's failure, unary or inside a stream. */
  readonly interceptor: Interceptor = (next) => async (req) => {
    try {
      const res = await next(req);
      if (!res.stream) return res;
      const note = (e: unknown) => this.noteConnect(e);
      const messages = res.message;
      async function* watched(): AsyncGenerator<any> {
        try {
          yield* messages;
        } catch (e) {
          note(e);
          throw e;
        }
      }
      return { ...res, message: watched() };
    } catch (e) {
      this.noteConnect(e);
      throw e;
    }
  };

  /** A fetch that reads the JSON bindings' refusals: an error body, or an error event of a stream (read with the client's own SSE reader). */
  fetch(binding: "jsonrpc" | "rest" | "grpc"): typeof fetch {
    return async (input, init) => {
      const res = await fetch(input, init);
      const type = res.headers.get("content-type") ?? "";
      if (binding === "grpc") return res;
      if (type.startsWith("text/event-stream") && res.body) {
        const [mine, theirs] = res.body.tee();
        void this.watchEvents(binding, theirs);
        return new Response(mine, { status: res.status, statusText: res.statusText, headers: res.headers });
      }
      if (type.includes("json")) {
        const body = (await res
          .clone()
          .json()
          .catch(() => undefined)) as any;
        if (binding === "jsonrpc" && body?.error) this.noteJson(`jsonrpc ${body.error.code}`, body.error.data);
        if (binding === "rest" && !res.ok) this.noteJson(`http ${res.status}`, body?.error?.details);
      }
      return res;
    };
  }

  private async watchEvents(binding: "jsonrpc" | "rest", body: ReadableStream<Uint8Array>): Promise<void> {
    try {
      for await (const m of readSse(body)) {
        const data = JSON.parse(m.data);
        if (binding === "jsonrpc" && data?.error) this.noteJson(`jsonrpc ${data.error.code}`, data.error.data);
        if (binding === "rest" && data?.error) this.noteJson(`http ${data.error.code}`, data.error.details);
      }
    } catch {
      // The client ended the exchange; what it read is what counts.
    }
  }
}
