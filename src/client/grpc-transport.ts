import type { LookupFunction } from "node:net";
import { ConnectError, createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createGrpcTransport, Http2SessionManager } from "@connectrpc/connect-node";
import { A2AService, type StreamResponse } from "../../gen/a2a/v1/a2a_pb.js";
import { isA2AError } from "../protocol/index.js";
import { fromConnectError } from "./binding-errors.js";
import type { ClientTransport, TransportCall } from "./client-transport.js";

/** How gRPC connections are made and observed. */
export interface GrpcTransportOptions {
  /** Resolves (and may refuse) the host of every connection. */
  readonly lookup?: LookupFunction;
  /** See every call's headers, trailers and outcome. */
  readonly interceptors?: readonly Interceptor[];
}

/**
 * §10: the gRPC binding over HTTP/2 (h2c for http URLs), with connect-node.
 * Service parameters travel as request metadata (§10.2). Deadlines are the
 * client's signal, not a gRPC timeout, so that a stream's deadline can end
 * once it has started.
 */
export class GrpcTransport implements ClientTransport {
  private readonly client: Client<typeof A2AService>;
  private readonly session: Http2SessionManager;

  /** `secure`: dial TLS when the URL names no scheme (a `hostname:port` interface). */
  constructor(url: string, secure = false, options: GrpcTransportOptions = {}) {
    const baseUrl = grpcBaseUrl(url, secure);
    // Our own session manager, so that close() can end the HTTP/2 connection.
    this.session = new Http2SessionManager(baseUrl, { idleConnectionTimeoutMs: 30_000 }, options.lookup ? { lookup: options.lookup } : undefined);
    this.client = createClient(A2AService, createGrpcTransport({ baseUrl, sessionManager: this.session, interceptors: options.interceptors ? [...options.interceptors] : [] }));
  }

  send: ClientTransport["send"] = (req, call) => unary(() => this.client.sendMessage(req, options(call)));
  get: ClientTransport["get"] = (req, call) => unary(() => this.client.getTask(req, options(call)));
  list: ClientTransport["list"] = (req, call) => unary(() => this.client.listTasks(req, options(call)));
  cancel: ClientTransport["cancel"] = (req, call) => unary(() => this.client.cancelTask(req, options(call)));
  stream: ClientTransport["stream"] = (req, call) => streaming(() => this.client.sendStreamingMessage(req, options(call)));
  subscribe: ClientTransport["subscribe"] = (req, call) => streaming(() => this.client.subscribeToTask(req, options(call)));
  createPushConfig: ClientTransport["createPushConfig"] = (req, call) => unary(() => this.client.createTaskPushNotificationConfig(req, options(call)));
  getPushConfig: ClientTransport["getPushConfig"] = (req, call) => unary(() => this.client.getTaskPushNotificationConfig(req, options(call)));
  listPushConfigs: ClientTransport["listPushConfigs"] = (req, call) => unary(() => this.client.listTaskPushNotificationConfigs(req, options(call)));
  deletePushConfig: ClientTransport["deletePushConfig"] = async (req, call) => {
    await unary(() => this.client.deleteTaskPushNotificationConfig(req, options(call)));
  };
  extendedCard: ClientTransport["extendedCard"] = (req, call) => unary(() => this.client.getExtendedAgentCard(req, options(call)));

  close(): void {
    this.session.abort();
  }
}

/**
 * gRPC interface URLs are written without a scheme ("host:50051", as
 * a2a.proto's AgentInterface.url asks) or as grpc(s)://; connect-node
 * wants http(s). A schemeless one is TLS when `secure`.
 */
export function grpcBaseUrl(url: string, secure = false): string {
  if (/^grpcs:\/\//i.test(url)) return url.replace(/^grpcs:/i, "https:");
  if (/^grpc:\/\//i.test(url)) return url.replace(/^grpc:/i, "http:");
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return `${secure ? "https" : "http"}://${url}`;
  return url;
}

function options(call: TransportCall): { signal: AbortSignal; headers: Record<string, string> } {
  return { signal: call.signal, headers: { ...call.headers } };
}

async function unary<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw mapped(e);
  }
}

async function* streaming(fn: () => AsyncIterable<StreamResponse>): AsyncGenerator<StreamResponse> {
  try {
    yield* fn();
  } catch (e) {
    throw mapped(e);
  }
}

function mapped(e: unknown): unknown {
  if (isA2AError(e)) return e;
  return e instanceof ConnectError || e instanceof Error ? fromConnectError(ConnectError.from(e)) : e;
}
