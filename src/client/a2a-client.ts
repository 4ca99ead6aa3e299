import { randomUUID } from "node:crypto";
import { create, type DescMessage, type MessageInitShape, type MessageShape } from "@bufbuild/protobuf";
import { context, propagation, type Context } from "@opentelemetry/api";
import {
  CancelTaskRequestSchema,
  DeleteTaskPushNotificationConfigRequestSchema,
  GetExtendedAgentCardRequestSchema,
  GetTaskPushNotificationConfigRequestSchema,
  GetTaskRequestSchema,
  ListTaskPushNotificationConfigsRequestSchema,
  ListTasksRequestSchema,
  Role,
  SendMessageRequestSchema,
  SubscribeToTaskRequestSchema,
  TaskPushNotificationConfigSchema,
  type AgentCard,
  type ListTaskPushNotificationConfigsResponse,
  type ListTasksResponse,
  type SendMessageRequest,
  type SendMessageResponse,
  type StreamResponse,
  type Task,
  type TaskPushNotificationConfig,
} from "../../gen/a2a/v1/a2a_pb.js";
import { A2AError, EXTENSIONS_HEADER, isA2AError, VERSION_HEADER } from "../protocol/index.js";
import { CardSignatureError, cardVerifier, type CardTrust, type VerifiedSignature } from "./card-verifier.js";
import { fetchAgentCard } from "./agent-card-fetch.js";
import { BINDING_NAMES, type BindingName } from "./binding.js";
import { clientFailure, clientFailureOf } from "./client-failure.js";
import type { TokenSource } from "./client-credentials.js";
import type { ClientTransport, TransportCall } from "./client-transport.js";
import { Deadline } from "./deadline.js";
import { GrpcTransport, type GrpcTransportOptions } from "./grpc-transport.js";
import { chooseInterface, type ChosenInterface } from "./interface-choice.js";
import { JSONRPC_V03, JSONRPC_V1 } from "./jsonrpc-dialects.js";
import { JsonRpcTransport } from "./jsonrpc-transport.js";
import { RestTransport } from "./rest-transport.js";

/** The deadline of a call when none is given (ms). */
export const DEFAULT_TIMEOUT_MS = 60_000;

/** How a client talks to an agent. */
export interface ClientOptions {
  /** Sent as `Authorization: Bearer …` with every request, the card fetch included (§7.3). */
  readonly token?: string;
  /**
   * Where to get the bearer token instead (e.g. ClientCredentials, OAuth 2.0
   * client credentials): asked before each request, and once more after a
   * request refused as unauthenticated (§7.3), whose token it then drops.
   */
  readonly credentials?: TokenSource;
  /** The bindings the client may use, in preference order; default jsonrpc, rest, grpc. */
  readonly bindings?: readonly BindingName[];
  /**
   * Deadline of each call in ms (default 60 s): a unary call must finish in
   * it, a stream must deliver its first event in it (then it runs until it
   * ends or the caller aborts). 0 means none.
   */
  readonly timeoutMs?: number;
  /** The tenant to send when the chosen interface declares none (§8.3.2 otherwise). */
  readonly tenant?: string;
  /** Extension URIs to activate with A2A-Extensions (§3.2.6). */
  readonly extensions?: readonly string[];
  /**
   * §8.4.3: verify the fetched card's signature with these trusted keys or
   * JWKS URL; `connect` then refuses an unsigned or tampered card with a
   * CardSignatureError.
   */
  readonly verifyCard?: CardTrust;
  /** The fetch the JSON bindings and the card fetch use (to guard or observe the exchange); default the global one. */
  readonly fetch?: typeof fetch;
  /** How gRPC connections are resolved (e.g. refusing private addresses) and observed. */
  readonly grpc?: GrpcTransportOptions;
}

/** Per-call options. */
export interface CallOptions {
  readonly signal?: AbortSignal;
  /** Overrides the client's timeoutMs for this call. */
  readonly timeoutMs?: number;
  /**
   * The OpenTelemetry context whose span the call continues (sent as W3C
   * `traceparent`/`tracestate`); default: the active context when the
   * call is made.
   */
  readonly traceContext?: Context;
}

/** Options of a subscription. */
export interface SubscribeOptions extends CallOptions {
  /**
   * Resume after this event: the SSE id (streamEventId) of the last event
   * a lost stream delivered, sent as Last-Event-ID (WHATWG HTML §9.2.4)
   * so the server replays only what came after it. JSON bindings only:
   * gRPC events carry no id.
   */
  readonly lastEventId?: string;
}

type SendInit = MessageInitShape<typeof SendMessageRequestSchema>;
/** A push config by its task and its own id (§3.1.8, §3.1.10). */
type PushConfigRef = { readonly taskId: string; readonly id: string; readonly tenant?: string };
type TaskRef = string | MessageInitShape<typeof GetTaskRequestSchema>;

/**
 * An outbound A2A client: resolves an agent card, picks one of
 * its interfaces (see chooseInterface) and performs the A2A operations
 * over that binding in the generated types. Every failure is an A2AError:
 * the agent's errors by their A2A name on any binding, exchange failures
 * (unreachable, deadline, credentials) as Internal with a clientFailure
 * kind (see clientFailureOf).
 */
export class A2AClient {
  private readonly transport: ClientTransport;
  private readonly headers: Readonly<Record<string, string>>;
  private readonly timeoutMs: number;
  /** §8.4.3: the card signature that verified, when `connect` was given `verifyCard`. */
  cardSignature?: VerifiedSignature;

  private constructor(
    /** The agent's card as resolved. */
    readonly card: AgentCard,
    /** The interface in use. */
    readonly chosen: ChosenInterface,
    private readonly options: ClientOptions,
  ) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    // §3.6.1: clients send A2A-Version with every request.
    const headers: Record<string, string> = { [VERSION_HEADER]: chosen.version };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.extensions && options.extensions.length > 0) headers[EXTENSIONS_HEADER] = options.extensions.join(", ");
    this.headers = headers;
    this.transport =
      chosen.binding === "grpc"
        ? // A `hostname:port` gRPC interface names no scheme: TLS when the card's HTTP interfaces use https.
          new GrpcTransport(chosen.url, card.supportedInterfaces.some((i) => /^https:/i.test(i.url)), options.grpc)
        : chosen.binding === "rest"
          ? new RestTransport(chosen.url, options.fetch)
          : new JsonRpcTransport(chosen.url, chosen.version === "0.3" ? JSONRPC_V03 : JSONRPC_V1, options.fetch);
  }

  /**
   * Resolves the card at `url` (a base URL, whose well-known card is read,
   * or the card's own URL) and returns a client of its best interface.
   */
  static async connect(url: string, options: ClientOptions = {}): Promise<A2AClient> {
    const deadline = new Deadline(options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    try {
      const token = options.credentials ? await options.credentials.token() : options.token;
      const card = await fetchAgentCard(url, { token, signal: deadline.signal, fetch: options.fetch });
      const verified = options.verifyCard ? await cardVerifier(options.verifyCard)(card) : undefined;
      const client = A2AClient.fromCard(card, options);
      client.cardSignature = verified;
      return client;
    } catch (e) {
      throw failure(e, deadline, undefined, `fetching the agent card of ${url}`);
    } finally {
      deadline.dispose();
    }
  }

  /** A client of a card already in hand. */
  static fromCard(card: AgentCard, options: ClientOptions = {}): A2AClient {
    return new A2AClient(card, chooseInterface(card, options.bindings ?? BINDING_NAMES), options);
  }

  /** §3.1.1: sends a message; the answer is a Task or a direct Message. */
  send(request: SendInit, call: CallOptions = {}): Promise<SendMessageResponse> {
    const req = this.sendRequest(request);
    return this.unary((c) => this.transport.send(req, c), call, "SendMessage");
  }

  /** §3.1.2: sends a message and streams the task's events (or one Message). */
  stream(request: SendInit, call: CallOptions = {}): AsyncGenerator<StreamResponse> {
    const req = this.sendRequest(request);
    return this.streaming((c) => this.transport.stream(req, c), call, "SendStreamingMessage");
  }

  /** §3.1.3: a task by id. */
  get(task: TaskRef, call: CallOptions = {}): Promise<Task> {
    const req = this.scoped(GetTaskRequestSchema, typeof task === "string" ? { id: task } : task);
    return this.unary((c) => this.transport.get(req, c), call, "GetTask");
  }

  /** §3.1.4: one page of tasks. */
  list(filter: MessageInitShape<typeof ListTasksRequestSchema> = {}, call: CallOptions = {}): Promise<ListTasksResponse> {
    const req = this.scoped(ListTasksRequestSchema, filter);
    return this.unary((c) => this.transport.list(req, c), call, "ListTasks");
  }

  /** §3.1.5: cancels a task. */
  cancel(task: string | MessageInitShape<typeof CancelTaskRequestSchema>, call: CallOptions = {}): Promise<Task> {
    const req = this.scoped(CancelTaskRequestSchema, typeof task === "string" ? { id: task } : task);
    return this.unary((c) => this.transport.cancel(req, c), call, "CancelTask");
  }

  /** §3.1.6: the task's current state, then its updates until it settles; with `lastEventId`, the events after that one. */
  subscribe(task: string | MessageInitShape<typeof SubscribeToTaskRequestSchema>, call: SubscribeOptions = {}): AsyncGenerator<StreamResponse> {
    const req = this.scoped(SubscribeToTaskRequestSchema, typeof task === "string" ? { id: task } : task);
    if (call.lastEventId === undefined) return this.streaming((c) => this.transport.subscribe(req, c), call, "SubscribeToTask");
    if (this.chosen.binding === "grpc") throw new A2AError("UnsupportedOperation", "gRPC streams carry no event ids to resume after: subscribe without lastEventId");
    const resume = { "last-event-id": call.lastEventId };
    return this.streaming((c) => this.transport.subscribe(req, { ...c, headers: { ...c.headers, ...resume } }), call, "SubscribeToTask");
  }

  /** §3.1.7: registers a webhook for a task's updates; the answer carries the config's id. */
  createPushConfig(config: MessageInitShape<typeof TaskPushNotificationConfigSchema>, call: CallOptions = {}): Promise<TaskPushNotificationConfig> {
    const req = this.scoped(TaskPushNotificationConfigSchema, config);
    return this.unary((c) => this.transport.createPushConfig(req, c), call, "CreateTaskPushNotificationConfig");
  }

  /** §3.1.8: one push config of a task, by task id and config id. */
  getPushConfig(ref: PushConfigRef, call: CallOptions = {}): Promise<TaskPushNotificationConfig> {
    const req = this.scoped(GetTaskPushNotificationConfigRequestSchema, ref);
    return this.unary((c) => this.transport.getPushConfig(req, c), call, "GetTaskPushNotificationConfig");
  }

  /** §3.1.9: a task's push configs (one page). */
  listPushConfigs(task: string | MessageInitShape<typeof ListTaskPushNotificationConfigsRequestSchema>, call: CallOptions = {}): Promise<ListTaskPushNotificationConfigsResponse> {
    const req = this.scoped(ListTaskPushNotificationConfigsRequestSchema, typeof task === "string" ? { taskId: task } : task);
    return this.unary((c) => this.transport.listPushConfigs(req, c), call, "ListTaskPushNotificationConfigs");
  }

  /** §3.1.10: removes a push config; deleting one already gone is no error (idempotent). */
  deletePushConfig(ref: PushConfigRef, call: CallOptions = {}): Promise<void> {
    const req = this.scoped(DeleteTaskPushNotificationConfigRequestSchema, ref);
    return this.unary((c) => this.transport.deletePushConfig(req, c), call, "DeleteTaskPushNotificationConfig");
  }

  /** §3.1.11: the card an authenticated caller may see, where the public card declares `capabilities.extendedAgentCard`. */
  extendedCard(call: CallOptions = {}): Promise<AgentCard> {
    const req = this.scoped(GetExtendedAgentCardRequestSchema, {});
    return this.unary((c) => this.transport.extendedCard(req, c), call, "GetExtendedAgentCard");
  }

  /** Releases the client's connections. */
  close(): void {
    this.transport.close();
  }

  /**
   * A request built from `init`, its tenant as §8.3.2 has it: the
   * interface's wins; else the configured one; else what the caller set.
   */
  private scoped<Desc extends DescMessage>(schema: Desc, init: MessageInitShape<Desc>): MessageShape<Desc> & { tenant: string } {
    const req = create(schema, init) as MessageShape<Desc> & { tenant: string };
    req.tenant = this.chosen.tenant || this.options.tenant || req.tenant;
    return req;
  }

  /** A SendMessageRequest with the defaults a client message needs: an id and the user role (§3.2.1). */
  private sendRequest(init: SendInit): SendMessageRequest {
    const req = this.scoped(SendMessageRequestSchema, init);
    if (req.message) {
      if (!req.message.messageId) req.message.messageId = randomUUID();
      if (req.message.role === Role.UNSPECIFIED) req.message.role = Role.USER;
    }
    return req;
  }

  /** The headers of one request: the client's own, with a token from its credentials when it has them. */
  private async headersFor(call: CallOptions): Promise<Readonly<Record<string, string>>> {
    const headers = traced(this.headers, call.traceContext ?? context.active());
    return this.options.credentials ? { ...headers, authorization: `Bearer ${await this.options.credentials.token()}` } : headers;
  }

  /** Whether a refusal should be retried once with a new token: the credentials gave the one refused. */
  private retriesAfter(e: unknown, headers: Readonly<Record<string, string>>): boolean {
    const credentials = this.options.credentials;
    if (!credentials || !(isA2AError(e) && (e.a2a === "Unauthenticated" || clientFailureOf(e) === "UNAUTHENTICATED"))) return false;
    credentials.invalidate(headers.authorization!.slice("Bearer ".length));
    return true;
  }

  private async unary<T>(fn: (c: TransportCall) => Promise<T>, call: CallOptions, operation: string): Promise<T> {
    const deadline = new Deadline(call.timeoutMs ?? this.timeoutMs, call.signal);
    try {
      const headers = await this.headersFor(call);
      try {
        return await fn({ signal: deadline.signal, headers });
      } catch (e) {
        if (!this.retriesAfter(e, headers)) throw e;
        return await fn({ signal: deadline.signal, headers: await this.headersFor(call) });
      }
    } catch (e) {
      throw failure(e, deadline, call.signal, operation);
    } finally {
      deadline.dispose();
    }
  }

  /** A stream's headers are taken when it is asked for: its body runs only at the first read, when another context may be active. */
  private streaming(fn: (c: TransportCall) => AsyncIterable<StreamResponse>, call: CallOptions, operation: string): AsyncGenerator<StreamResponse> {
    const headers = traced(this.headers, call.traceContext ?? context.active());
    return this.streamed(fn, call, operation, headers);
  }

  private async *streamed(fn: (c: TransportCall) => AsyncIterable<StreamResponse>, call: CallOptions, operation: string, base: Readonly<Record<string, string>>): AsyncGenerator<StreamResponse> {
    const deadline = new Deadline(call.timeoutMs ?? this.timeoutMs, call.signal);
    const credentials = this.options.credentials;
    const withToken = async () => (credentials ? { ...base, authorization: `Bearer ${await credentials.token()}` } : base);
    try {
      let headers = await withToken();
      let events = 0;
      for (let attempt = 0; ; attempt++) {
        try {
          for await (const event of fn({ signal: deadline.signal, headers })) {
            deadline.clear();
            events++;
            yield event;
          }
          return;
        } catch (e) {
          // A refusal comes before the first event: then the stream is asked for once more with a new token.
          if (attempt > 0 || events > 0 || !this.retriesAfter(e, headers)) throw e;
          headers = await withToken();
        }
      }
    } catch (e) {
      throw failure(e, deadline, call.signal, operation);
    } finally {
      deadline.dispose();
    }
  }
}

/** Whatever a call threw, as an A2AError: the deadline and the caller's abort are told apart first. */
function failure(e: unknown, deadline: Deadline, callerSignal: AbortSignal | undefined, operation: string): unknown {
  if (deadline.timedOut) return clientFailure("DEADLINE_EXCEEDED", `${operation} did not answer within ${deadline.ms} ms`, e);
  if (callerSignal?.aborted) return clientFailure("CANCELED", `${operation} was aborted`, e);
  if (isA2AError(e) || e instanceof CardSignatureError) return e;
  return clientFailure("UNAVAILABLE", `${operation} failed: ${e instanceof Error ? e.message : String(e)}`, e);
}

/**
 * The call's headers plus the W3C trace context of the call's span
 * (`traceparent`, `tracestate`), so that a hub calling a remote agent and
 * the agent's own spans form one trace; the headers unchanged when no
 * tracer is set up.
 */
function traced(headers: Readonly<Record<string, string>>, traceContext: Context): Readonly<Record<string, string>> {
  const carrier: Record<string, string> = {};
  propagation.inject(traceContext, carrier);
  return carrier.traceparent === undefined ? headers : { ...headers, ...carrier };
}
