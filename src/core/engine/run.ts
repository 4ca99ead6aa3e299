/**
 * The Run record: one agent execution on one task, and what the engine
 * knows of it while it lasts. Kept apart because every other part of the
 * engine (registry, writer, event application, cancel) reads or marks it.
 */
import { randomUUID } from "node:crypto";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import type { Context } from "@opentelemetry/api";
import { MessageSchema, Role, TaskState, type Message, type Task, type TaskPushNotificationConfig } from "../../../gen/a2a/v1/a2a_pb.js";
import { EventBus, type EventSink, type ExecutionContext } from "../../execution/index.js";
import type { SendKey, StoreScope } from "../../store/index.js";
import type { HostedAgent } from "../hosted-agent.js";

/** How a run on a new message turned out: a direct Message, or a task that now exists. */
export type FirstOutcome = { readonly kind: "message"; readonly message: Message } | { readonly kind: "task"; readonly taskId: string };

/** Per-request facts a run needs beyond the message. */
export interface RunOptions {
  readonly metadata?: Task["metadata"];
  readonly pushConfig?: TaskPushNotificationConfig;
  /** The A2A version of the request, which the push config's payloads follow. */
  readonly version?: string;
  readonly extensions: readonly string[];
  /** §3.3.1: the ledger key and fingerprint of the send; its outcome is recorded with the task so a retry finds it. */
  readonly record?: { readonly key: SendKey; readonly fingerprint: Uint8Array };
  /** The OpenTelemetry context of the call that started the run, handed on to the agent. */
  readonly traceContext?: Context;
}

/** Where a task lives: enough to write its status. A Run is one. */
export interface TaskAddress {
  readonly scope: StoreScope;
  readonly taskId: string;
  readonly contextId: string;
}

export interface Run extends TaskAddress {
  readonly key: string;
  readonly agent: HostedAgent;
  readonly userMessage: Message;
  readonly options: RunOptions;
  readonly controller: AbortController;
  readonly resolveFirst: (o: FirstOutcome) => void;
  readonly rejectFirst: (e: unknown) => void;
  context?: ExecutionContext;
  sink?: EventSink;
  created: boolean;
  replied: boolean;
  /** The agent published a status during this run. */
  agentSetStatus: boolean;
  state: TaskState;
  /** A unit holding the run's writes failed: the run is aborted and its task settled once it returns (lost-writes.ts). */
  lost: boolean;
  done?: Promise<void>;
}

/** What a new run starts from; the first outcome's callbacks default to none (a run on an existing task has no first outcome). */
export interface NewRun extends TaskAddress {
  readonly agent: HostedAgent;
  readonly userMessage: Message;
  readonly options: RunOptions;
  readonly resolveFirst?: (o: FirstOutcome) => void;
  readonly rejectFirst?: (e: unknown) => void;
  /** The task exists already (a continued or an interrupted task). */
  readonly created?: boolean;
  readonly state?: TaskState;
}

/** The bus key of a task in a scope. */
export function taskKey(scope: StoreScope, taskId: string): string {
  return EventBus.key(scope.tenant, scope.agentId, taskId);
}

export function newRun(init: NewRun): Run {
  return {
    key: taskKey(init.scope, init.taskId),
    scope: init.scope,
    agent: init.agent,
    taskId: init.taskId,
    contextId: init.contextId,
    userMessage: init.userMessage,
    options: init.options,
    controller: new AbortController(),
    resolveFirst: init.resolveFirst ?? (() => {}),
    rejectFirst: init.rejectFirst ?? (() => {}),
    created: init.created ?? false,
    replied: false,
    agentSetStatus: false,
    state: init.state ?? TaskState.UNSPECIFIED,
    lost: false,
  };
}

/** An agent message from text or a partial message, addressed to the run's task. */
export function agentMessage(message: string | MessageInitShape<typeof MessageSchema>, run: TaskAddress): Message {
  const init = typeof message === "string" ? { parts: [{ content: { case: "text" as const, value: message } }] } : message;
  return create(MessageSchema, {
    ...init,
    messageId: (init as { messageId?: string }).messageId || randomUUID(),
    role: (init as { role?: Role }).role || Role.AGENT,
    taskId: run.taskId,
    contextId: run.contextId,
  });
}

/** A message addressed to the run's task, with the ids the server assigned (§3.4). */
export function addressed(message: Message, task: Pick<TaskAddress, "taskId" | "contextId">): Message {
  return create(MessageSchema, { ...message, taskId: task.taskId, contextId: task.contextId });
}

export function systemMessage(run: TaskAddress, text: string): Message {
  return agentMessage(text, run);
}
