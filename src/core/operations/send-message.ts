import { randomUUID } from "node:crypto";
import type { HandlerContext } from "@connectrpc/connect";
import { create } from "@bufbuild/protobuf";
import {
  SendMessageResponseSchema,
  StreamResponseSchema,
  type Message,
  type SendMessageRequest,
  type SendMessageResponse,
} from "../../../gen/a2a/v1/a2a_pb.js";
import type { StoreScope } from "../../store/index.js";
import { A2AError, invalidParams, taskNotFound } from "../a2a-error.js";
import type { SequencedEvent } from "../a2a-handlers.js";
import { serviceParamsKey } from "../call-context.js";
import { resolveCall } from "../resolve-call.js";
import { requirePush, requireStreaming } from "../capabilities.js";
import type { CoreDeps } from "../core-deps.js";
import type { HostedAgent } from "../hosted-agent.js";
import type { RunOptions } from "../task-engine.js";
import { isTerminal, stateName } from "../task-state.js";
import { follow, listen } from "../task-stream.js";
import { checkAcceptedOutputModes, checkHistoryLength, validateClientMessage } from "../validate.js";
import { checkPushUrl, preparePushConfig, pushVersion } from "./push-configs.js";

/** Where SendMessage carries an inline push config (§3.2.2). */
const PUSH_FIELD = "configuration.taskPushNotificationConfig.";

/** A validated send: where it goes and what it continues. */
interface PreparedSend {
  readonly scope: StoreScope;
  readonly agent: HostedAgent;
  readonly message: Message;
  readonly options: RunOptions;
  readonly historyLength?: number;
  readonly returnImmediately: boolean;
  /** The task the message continues (§3.4.3), when it names one. */
  readonly existing?: { id: string; contextId: string; state: number };
}

/** §3.1.1 inputs, §5.7 validation and §3.4 id rules, shared by both send operations. */
function prepare(deps: CoreDeps, ctx: HandlerContext, req: SendMessageRequest): PreparedSend {
  const { scope, agent } = resolveCall(deps, ctx, req.tenant);
  const message = validateClientMessage(req.message, agent.card.defaultInputModes);
  const config = req.configuration;
  checkHistoryLength("configuration.historyLength", config?.historyLength);
  checkAcceptedOutputModes(config?.acceptedOutputModes ?? [], agent.card.defaultOutputModes);
  let pushConfig;
  if (config?.taskPushNotificationConfig) {
    requirePush(agent);
    pushConfig = preparePushConfig(config.taskPushNotificationConfig, PUSH_FIELD);
  }
  const params = ctx.values.get(serviceParamsKey);
  const options: RunOptions = { metadata: req.metadata, pushConfig, version: pushVersion(params.version), extensions: params.extensions };
  let existing;
  if (message.taskId) {
    const head = deps.store.getHead(scope, message.taskId);
    if (!head) throw taskNotFound(message.taskId);
    // §3.4.3: a contextId that disagrees with the task's is refused.
    if (message.contextId && message.contextId !== head.contextId) {
      throw invalidParams("message.contextId", `does not match the context of task ${message.taskId}`);
    }
    // §3.1.1: terminal tasks accept no further messages.
    if (isTerminal(head.state)) {
      throw new A2AError("UnsupportedOperation", `task ${message.taskId} is ${stateName(head.state)} and accepts no further messages`, {
        metadata: { taskId: message.taskId },
      });
    }
    existing = { id: head.id, contextId: head.contextId, state: head.state };
  }
  return { scope, agent, message, options, historyLength: config?.historyLength, returnImmediately: config?.returnImmediately ?? false, existing };
}

/** §3.1.1: a Task (after it settles, unless returnImmediately) or a direct Message. */
export async function sendMessage(deps: CoreDeps, ctx: HandlerContext, req: SendMessageRequest): Promise<SendMessageResponse> {
  const p = prepare(deps, ctx, req);
  if (p.options.pushConfig) await checkPushUrl(deps, p.options.pushConfig, PUSH_FIELD);
  let taskId: string;
  if (p.existing) {
    taskId = p.existing.id;
    deps.engine.continueTask(p.scope, p.agent, p.existing, p.message, p.options);
  } else {
    taskId = randomUUID();
    const first = await deps.engine.startTask(p.scope, p.agent, taskId, p.message, p.message.contextId || randomUUID(), p.options);
    if (first.kind === "message") return create(SendMessageResponseSchema, { payload: { case: "message", value: first.message } });
  }
  // §3.2.2: blocking by default, until terminal or interrupted.
  if (!p.returnImmediately) await deps.engine.waitSettled(p.scope, taskId, ctx.signal);
  const task = deps.store.getTask(p.scope, taskId, { historyLength: p.historyLength });
  if (!task) throw taskNotFound(taskId);
  return create(SendMessageResponseSchema, { payload: { case: "task", value: task } });
}

/**
 * §3.1.2: the Task first (or one Message, then the end), then its updates
 * in order, ending after a terminal or interrupted state.
 */
export async function* sendStreamingMessage(deps: CoreDeps, ctx: HandlerContext, req: SendMessageRequest): AsyncGenerator<SequencedEvent> {
  const p = prepare(deps, ctx, req);
  requireStreaming(p.agent);
  if (p.options.pushConfig) await checkPushUrl(deps, p.options.pushConfig, PUSH_FIELD);
  if (p.existing) {
    // Listen, continue and snapshot in one tick: the snapshot and the tail meet exactly.
    const queue = listen(deps.engine, p.scope, p.existing.id);
    const snap = deps.engine.continueTask(p.scope, p.agent, p.existing, p.message, p.options, { historyLength: p.historyLength });
    const head = { seq: snap.seq, event: create(StreamResponseSchema, { payload: { case: "task", value: snap.task } }), settled: false };
    yield* follow(queue, [head], ctx.signal);
    return;
  }
  const taskId = randomUUID();
  const queue = listen(deps.engine, p.scope, taskId);
  let first;
  try {
    first = await deps.engine.startTask(p.scope, p.agent, taskId, p.message, p.message.contextId || randomUUID(), p.options);
  } catch (e) {
    queue.close();
    throw e;
  }
  if (first.kind === "message") {
    queue.close();
    yield { seq: 0, event: create(StreamResponseSchema, { payload: { case: "message", value: first.message } }) };
    return;
  }
  // The creation event (seq 1) is the Task snapshot the stream must begin with.
  yield* follow(queue, [], ctx.signal);
}
