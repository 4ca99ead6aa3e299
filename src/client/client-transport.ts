import type {
  AgentCard,
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetExtendedAgentCardRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  SendMessageRequest,
  SendMessageResponse,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from "../../gen/a2a/v1/a2a_pb.js";

/** What every call carries to the wire: the abort signal (deadline and caller) and the service parameters. */
export interface TransportCall {
  readonly signal: AbortSignal;
  /** A2A-Version, A2A-Extensions, Authorization (§3.2.6, §7); Last-Event-ID on a resumed subscription. */
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
  createPushConfig(req: TaskPushNotificationConfig, call: TransportCall): Promise<TaskPushNotificationConfig>;
  getPushConfig(req: GetTaskPushNotificationConfigRequest, call: TransportCall): Promise<TaskPushNotificationConfig>;
  listPushConfigs(req: ListTaskPushNotificationConfigsRequest, call: TransportCall): Promise<ListTaskPushNotificationConfigsResponse>;
  deletePushConfig(req: DeleteTaskPushNotificationConfigRequest, call: TransportCall): Promise<void>;
  extendedCard(req: GetExtendedAgentCardRequest, call: TransportCall): Promise<AgentCard>;
  /** Releases connections (gRPC keeps an HTTP/2 session). */
  close(): void;
}
