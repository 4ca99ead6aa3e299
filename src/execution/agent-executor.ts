import type { Message, StreamResponse, Task, TaskState } from "../../gen/a2a/v1/a2a_pb.js";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { Context } from "@opentelemetry/api";
import type { ArtifactSchema, MessageSchema } from "../../gen/a2a/v1/a2a_pb.js";

/** What an agent is told about the message it is asked to handle. */
export interface ExecutionContext {
  /** The task this run works on (already assigned by the server, §3.4.2). */
  readonly taskId: string;
  readonly contextId: string;
  /** The user message that started this run. */
  readonly message: Message;
  /** The task as stored before this message, when the message continues one (§3.4.3). */
  readonly task?: Task;
  /** Aborted when the task is canceled (§3.1.5) or the server stops; stop work promptly. */
  readonly signal: AbortSignal;
  readonly tenant: string;
  readonly agentId: string;
  /** Extension URIs the client activated for this request (§4.6). */
  readonly extensions: readonly string[];
  /**
   * The OpenTelemetry context of this run when tracing is on: pass it to
   * outbound calls (the A2A client's `traceContext` call option,
   * `propagation.inject`) so that they join the caller's trace. The hub
   * does not keep the context across awaits for you.
   */
  readonly traceContext?: Context;
}

/** Options of an artifact event (§4.2.2). */
export interface ArtifactOptions {
  /** Append the parts to an artifact with the same id instead of replacing it. */
  readonly append?: boolean;
  /** This is the artifact's last chunk; later appends are refused. */
  readonly lastChunk?: boolean;
}

/**
 * Where an agent publishes what it does. The server validates every event
 * against the task state machine, stores it and fans it out; an event that
 * breaks the rules (e.g. leaving a terminal state) is refused and logged,
 * and the method returns false.
 */
export interface EventSink {
  /** Moves the task to `state`, optionally with an agent message (text or a whole message). */
  status(state: TaskState, message?: string | MessageInitShape<typeof MessageSchema>): boolean;
  /** Creates, replaces or appends to an artifact. */
  artifact(artifact: MessageInitShape<typeof ArtifactSchema>, options?: ArtifactOptions): boolean;
  /**
   * Answers with a direct Message and no task (§3.1.1). Only valid as the
   * first and only event of a run on a new message.
   */
  reply(message: string | MessageInitShape<typeof MessageSchema>): boolean;
  /** Publishes a raw StreamResponse event, for agents that speak the wire types. */
  publish(event: StreamResponse): boolean;
}

/**
 * The contract a user of a2a-hub implements to host an agent. `execute` runs
 * once per message; when its promise settles the run is over, and a task it
 * left neither terminal nor interrupted is marked failed.
 */
export interface AgentExecutor {
  execute(context: ExecutionContext, events: EventSink): Promise<void>;
  /**
   * Called on CancelTask while a run is active, after `context.signal` has
   * been aborted. The task ends TASK_STATE_CANCELED whatever this does.
   */
  cancel?(context: ExecutionContext, events: EventSink): Promise<void> | void;
}

export type { TaskState };
