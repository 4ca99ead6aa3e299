import type {
  CancelTaskRequest,
  GetTaskRequest,
  ListTasksRequest,
  ListTasksResponse,
  SendMessageRequest,
  SendMessageResponse,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
} from "../../gen/a2a/v1/a2a_pb.js";

/** What every call carries to the wire: the abort signal (deadline and caller) and the service parameters. */
export interface TransportCall {
  readonly signal: AbortSignal;
  /** A2A-Version, A2A-Extensions, Authorization (§3.2.6, §7). */
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * One binding's way of performing the A2A operations the client offers,
 * in the generated types. Requests arrive complete (tenant set, message
 * defaults filled); errors leave as A2AError.
 */
export interface ClientTransport {
  send(req: SendMessageRequest, call: TransportCall): Promise<SendMessageResponse>;
  stream(req: SendMessageRequest, call: TransportCall): AsyncIterable<StreamResponse>;
  get(req: GetTaskRequest, call: TransportCall): Promise<Task>;
  list(req: ListTasksRequest, call: TransportCall): Promise<ListTasksResponse>;
  cancel(req: CancelTaskRequest, call: TransportCall): Promise<Task>;
  subscribe(req: SubscribeToTaskRequest, call: TransportCall): AsyncIterable<StreamResponse>;
  /** Releases connections (gRPC keeps an HTTP/2 session). */
  close(): void;
}
