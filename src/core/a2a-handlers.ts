import type { HandlerContext } from "@connectrpc/connect";
import type { Empty } from "@bufbuild/protobuf/wkt";
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
import type { WireAnswer } from "./wire-answer.js";

/** An event of a stream with its position in the task's event log (the SSE `id:`). */
export interface SequencedEvent {
  /** Sequence number in the task's event log; 0 for events that are not logged (a direct Message). */
  readonly seq: number;
  readonly event: StreamResponse;
}

/**
 * The one implementation of every A2A operation. It is a connect
 * ServiceImpl<typeof A2AService> whose results are complete messages, so that
 * facades can call it directly and read typed answers. Errors are A2AError.
 */
export interface A2AHandlers {
  sendMessage(req: SendMessageRequest, ctx: HandlerContext): Promise<SendMessageResponse>;
  sendStreamingMessage(req: SendMessageRequest, ctx: HandlerContext): AsyncIterable<StreamResponse>;
  getTask(req: GetTaskRequest, ctx: HandlerContext): Promise<Task>;
  listTasks(req: ListTasksRequest, ctx: HandlerContext): Promise<ListTasksResponse>;
  cancelTask(req: CancelTaskRequest, ctx: HandlerContext): Promise<Task>;
  subscribeToTask(req: SubscribeToTaskRequest, ctx: HandlerContext): AsyncIterable<StreamResponse>;
  createTaskPushNotificationConfig(req: TaskPushNotificationConfig, ctx: HandlerContext): Promise<TaskPushNotificationConfig>;
  getTaskPushNotificationConfig(req: GetTaskPushNotificationConfigRequest, ctx: HandlerContext): Promise<TaskPushNotificationConfig>;
  listTaskPushNotificationConfigs(req: ListTaskPushNotificationConfigsRequest, ctx: HandlerContext): Promise<ListTaskPushNotificationConfigsResponse>;
  getExtendedAgentCard(req: GetExtendedAgentCardRequest, ctx: HandlerContext): Promise<AgentCard>;
  deleteTaskPushNotificationConfig(req: DeleteTaskPushNotificationConfigRequest, ctx: HandlerContext): Promise<Empty>;
}

/**
 * What facades need beyond the RPCs: streams with their event-log sequence
 * numbers, and resuming a subscription after a given sequence number
 * (SSE `Last-Event-ID`), reading the log and then the live tail.
 */
export interface A2AStreams {
  sendStreamingMessageSequenced(req: SendMessageRequest, ctx: HandlerContext): AsyncIterable<SequencedEvent>;
  /** With afterSeq undefined: the Task snapshot first (§3.1.6); otherwise the logged events after afterSeq, then live ones. */
  subscribeSequenced(req: SubscribeToTaskRequest, ctx: HandlerContext, afterSeq?: number): AsyncIterable<SequencedEvent>;
}

/** What the protobuf bindings use beyond the RPCs: the same answers, already in protobuf binary (wire-answer.ts). */
export interface A2AWireAnswers {
  sendMessageWire(req: SendMessageRequest, ctx: HandlerContext): Promise<WireAnswer>;
}

/** The service as facades see it. */
export type A2AServiceApi = A2AHandlers & A2AStreams & A2AWireAnswers;
