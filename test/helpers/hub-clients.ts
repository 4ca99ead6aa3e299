import { ConnectError, createClient, Code, type Client, type Interceptor, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, expect } from "vitest";
import { create } from "@bufbuild/protobuf";
import { A2AService, AgentCardSchema, type AgentCard, type StreamResponse } from "../../gen/a2a/v1/a2a_pb.js";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { A2AClient, fromConnectError, readSse, streamEventId, type BindingName, type ClientOptions } from "../../src/client/index.js";
import { A2A_ERROR_DOMAIN, A2AError, isA2AError, type A2AErrorName } from "../../src/protocol/index.js";
import { agentInterfaces, ROOT_INTERFACES } from "../../src/server/index.js";
import { clientText } from "./messages.js";
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

/** The bindings the load tests spread their clients over: gRPC and Connect, JSON-RPC and REST (the two with SSE ids). */
export const LOAD_BINDINGS = ["grpc", "connect-h1", "jsonrpc", "rest"] as const satisfies readonly Binding[];

/** The connect-node transports: the bindings src/client does not speak, and raw gRPC/Connect. */
export const CONNECT_NODE_BINDINGS = ["connect-h1", "connect-h2", "grpc", "grpc-web"] as const;
export type ConnectNodeBinding = (typeof CONNECT_NODE_BINDINGS)[number];

/** What a refusal looked like on the wire: the binding's own code and the ErrorInfo reasons and domains (§9.5, §10.6, §11.6). */
export interface WireRefusal {
  /** "jsonrpc -32001", "http 404" or "grpc NOT_FOUND". */
  readonly code: string;
  readonly reasons: readonly string[];
  readonly domains: readonly string[];
}

/** The A2AClient operations every binding offers here. */
const OPERATIONS = ["send", "stream", "get", "list", "cancel", "subscribe", "createPushConfig", "getPushConfig", "listPushConfigs", "deletePushConfig", "extendedCard", "close"] as const;
type Operations = Pick<A2AClient, (typeof OPERATIONS)[number]>;

/** The A2A operations over one binding, with the last refusal it saw on the wire. */
export interface HubClient extends Operations {
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

/**
 * A client over `binding` of the hub at `target`: its root URL (or an
 * agent's URL), whose card names the interfaces, or a card in hand
 * (src/client's bindings only).
 */
export async function hubClient(target: string | AgentCard, binding: Binding, options: HubClientOptions = {}): Promise<HubClient> {
  if (typeof target !== "string" || !isClientBinding(binding)) return clientOf(target, binding, options);
  const wire = new WireLog();
  return wire.client(binding, await A2AClient.connect(target, wire.options(binding, options)));
}

/**
 * A client over `binding` of the hub at `base` (an agent's with `agentId`),
 * at once: from the card the hub publishes there (hubCardOf) rather than
 * fetched, as load loops that open a client per operation want.
 */
export function hubClientAt(base: string, binding: Binding, options: HubClientOptions = {}, agentId?: string): HubClient {
  if (!isClientBinding(binding) && agentId !== undefined) throw new Error(`${binding} reaches the root only here`);
  return clientOf(isClientBinding(binding) ? hubCardOf(base, agentId) : base, binding, options);
}

/** What a test may set of src/client's options (the rest is the harness's). */
export type HubClientOptions = Omit<ClientOptions, "bindings" | "fetch" | "grpc">;

function isClientBinding(binding: Binding): binding is BindingName {
  return binding === "jsonrpc" || binding === "rest" || binding === "grpc";
}

function clientOf(target: string | AgentCard, binding: Binding, options: HubClientOptions): HubClient {
  const wire = new WireLog();
  if (isClientBinding(binding)) {
    if (typeof target === "string") throw new Error("a client of a URL is made by hubClient, which fetches its card");
    return wire.client(binding, A2AClient.fromCard(target, wire.options(binding, options)));
  }
  if (typeof target !== "string") throw new Error(`${binding} is reached by URL, not by card`);
  const rpc = createClient(A2AService, connectNodeTransport(target, binding, [wire.interceptor, bearer(options)]));
  return wire.client(binding, connectNodeOperations(rpc));
}

/**
 * The card the hub at `base` publishes at its root, or for agent `agentId`
 * (its path for the HTTP bindings, its id as the gRPC tenant, §8.3.2), from
 * the hub's own interface lists: for reaching an agent whose card the
 * caller may not read (a private or unknown agent's calls then answer as
 * the hub decides), or without a card fetch.
 */
export function hubCardOf(base: string, agentId?: string): AgentCard {
  const root = new URL(base);
  return create(AgentCardSchema, {
    name: agentId ?? "a2a-hub",
    supportedInterfaces: (agentId === undefined ? ROOT_INTERFACES : agentInterfaces(agentId)).map((i) => ({
      url: i.protocolBinding === "GRPC" ? root.host : new URL(i.path.replace(/^\//, ""), root).toString().replace(/\/+$/, ""),
      protocolBinding: i.protocolBinding,
      protocolVersion: i.protocolVersion,
      tenant: i.tenant ?? "",
    })),
  });
}

/** A stream event with its SSE id as a number (the hub's event-log seq), where the binding carries one. */
export interface SeenEvent {
  readonly seq?: number;
  readonly event: StreamResponse;
}

/** A client's stream with each event's SSE id read as its log seq. */
export async function* withSeqs(events: AsyncIterable<StreamResponse>): AsyncGenerator<SeenEvent> {
  for await (const event of events) {
    const id = streamEventId(event);
    yield { seq: id === undefined ? undefined : Number(id), event };
  }
}

/**
 * Whether `e` is the A2A error `name` as the agent named it in its answer's
 * ErrorInfo reason (§9.5, §10.6, §11.6), not guessed from a bare status
 * code (src/client notes the code it read in the metadata then).
 */
export function refusedAs(e: unknown, name: A2AErrorName): e is A2AError {
  return isA2AError(e) && e.a2a === name && !["jsonRpcCode", "httpStatus", "grpcCode"].some((key) => key in e.metadata);
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

/** What one call answered, reduced to what isolation tests compare: the binding's not-found answer, or anything else spelt out. */
export type Outcome = "ok" | "not-found" | `other:${string}`;

/** The outcome of `call`: "not-found" is TaskNotFound, or AgentNotFound (its codes, §5.4, with a reason of its own). */
export async function outcomeOf(call: () => Promise<unknown>): Promise<Outcome> {
  try {
    await call();
    return "ok";
  } catch (e) {
    if (isA2AError(e) && (e.a2a === "TaskNotFound" || e.a2a === "AgentNotFound")) return "not-found";
    return `other:${isA2AError(e) ? `${e.a2a} ` : ""}${e instanceof Error ? e.message : String(e)}`;
  }
}

/** Starts a task that stays open (input-required); returns its id. */
export async function openTask(client: HubClient): Promise<string> {
  const answer = await client.send(clientText("input-required"));
  if (answer.payload.case !== "task") throw new Error(`expected a task, got ${answer.payload.case}`);
  return answer.payload.value.id;
}

/** The ids of the tasks ListTasks shows (one page of 100). */
export async function listedIds(client: HubClient): Promise<string[]> {
  return (await client.list({ pageSize: 100 })).tasks.map((t) => t.id);
}

/** Every operation a caller may try on task `id`, by name: the calls an isolation test expects the same answer from. */
export function everyTaskCall(client: HubClient, id: string): Record<"get" | "cancel" | "subscribe" | "followUp" | "pushCreate" | "pushList", () => Promise<unknown>> {
  return {
    get: () => client.get(id),
    cancel: () => client.cancel(id),
    // The first event (or the refusal before it) is the answer.
    subscribe: async () => {
      for await (const _ of client.subscribe(id)) break;
    },
    followUp: () => client.send({ ...clientText("more", { taskId: id }), configuration: { returnImmediately: true } }),
    pushCreate: () => client.createPushConfig({ taskId: id, url: "https://example.com/hook" }),
    pushList: () => client.listPushConfigs(id),
  };
}

/** The field names an InvalidParams error names (§3.3.2). */
export function violatedFields(error: A2AError): string[] {
  return error.violations.map((v) => v.field);
}

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
    subscribe: (ref, call = {}) => {
      if (call.lastEventId !== undefined) throw new A2AError("UnsupportedOperation", "gRPC and Connect streams carry no event ids: subscribe without lastEventId");
      return streaming(() => rpc.subscribeToTask(id(ref), call));
    },
    createPushConfig: (config, call) => unary(() => rpc.createTaskPushNotificationConfig(config, call)),
    getPushConfig: (ref, call) => unary(() => rpc.getTaskPushNotificationConfig(ref, call)),
    listPushConfigs: (ref, call) => unary(() => rpc.listTaskPushNotificationConfigs(typeof ref === "string" ? { taskId: ref } : ref, call)),
    deletePushConfig: async (ref, call) => {
      await unary(() => rpc.deleteTaskPushNotificationConfig(ref, call));
    },
    extendedCard: (call) => unary(() => rpc.getExtendedAgentCard({}, call)),
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
    const bound = Object.fromEntries(OPERATIONS.map((name) => [name, (ops[name] as (...args: unknown[]) => unknown).bind(ops)])) as unknown as Operations;
    return {
      binding,
      get refusal() {
        return log.last;
      },
      forget: () => (log.last = undefined),
      ...bound,
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

  /** src/client's options for `binding`, its exchanges seen by this log. */
  options(binding: BindingName, options: HubClientOptions): ClientOptions {
    return { timeoutMs: 20_000, ...options, bindings: [binding], fetch: this.fetch(binding), grpc: { interceptors: [this.interceptor] } };
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
