import { newContextId, newTaskId } from "../ids.js";
import type { HandlerContext } from "@connectrpc/connect";
import { create } from "@bufbuild/protobuf";
import {
  SendMessageResponseSchema,
  StreamResponseSchema,
  type Message,
  type SendMessageRequest,
  type SendMessageResponse,
} from "../../../gen/a2a/v1/a2a_pb.js";
import type { SentMessage, StoreScope } from "../../store/index.js";
import { A2AError, invalidParams, taskNotFound } from "../../protocol/index.js";
import type { SequencedEvent } from "../a2a-handlers.js";
import { serviceParamsKey, traceContextKey } from "../call-context.js";
import { requestHeaderValue } from "../handler-context.js";
import { activatedExtensions, resolveCall } from "../resolve-call.js";
import { requirePush, requireStreaming } from "../capabilities.js";
import type { CoreDeps } from "../core-deps.js";
import { clientError } from "../store-outage.js";
import type { HostedAgent } from "../hosted-agent.js";
import { IDEMPOTENCY_KEY_HEADER, sendKeyOf, type PriorSend, type SendClaim } from "../send-ledger.js";
import type { RunOptions } from "../engine/index.js";
import { limitReached } from "../tenant-counter.js";
import { isSettled, isTerminal, stateName } from "../../protocol/index.js";
import { follow, listen, logPager } from "../task-stream.js";
import { checkAcceptedOutputModes, checkHistoryLength, checkMessageLimits, validateClientMessage } from "../validate.js";
import { checkPushUrl, preparePushConfig, pushVersion } from "./push-configs.js";
import { messageAnswer, readTaskWire, taskAnswer, type WireAnswer } from "../wire-answer.js";

/** Where SendMessage carries an inline push config (§3.2.2). */
const PUSH_FIELD = "configuration.taskPushNotificationConfig.";

/** A validated request: where it goes and how the answer is shaped. */
interface CheckedSend {
  readonly scope: StoreScope;
  readonly agent: HostedAgent;
  readonly message: Message;
  readonly historyLength?: number;
  readonly returnImmediately: boolean;
}

/** A new send, ready to run: what it continues, and the claim on its messageId. */
interface PreparedSend extends CheckedSend {
  readonly options: RunOptions;
  readonly claim: SendClaim;
  /** The task the message continues (§3.4.3), when it names one. */
  readonly existing?: { id: string; contextId: string; state: number; runningElsewhere?: boolean };
}

/** §3.1.1 inputs and §5.7 validation, which a retry must pass as well. */
function check(deps: CoreDeps, ctx: HandlerContext, req: SendMessageRequest): CheckedSend {
  const { scope, agent } = resolveCall(deps, ctx, req.tenant);
  const message = validateClientMessage(req.message, agent.card.defaultInputModes);
  checkMessageLimits(message, req.metadata, deps.limits);
  const config = req.configuration;
  checkHistoryLength("configuration.historyLength", config?.historyLength);
  checkAcceptedOutputModes(config?.acceptedOutputModes ?? [], agent.card.defaultOutputModes);
  return { scope, agent, message, historyLength: config?.historyLength, returnImmediately: config?.returnImmediately ?? false };
}

/**
 * §3.4 id rules, the inline push config and the in-flight limit of a send
 * that is new; the claim is released if it is refused.
 */
async function prepare(deps: CoreDeps, ctx: HandlerContext, req: SendMessageRequest, c: CheckedSend, claim: SendClaim): Promise<PreparedSend> {
  try {
    let pushConfig;
    if (req.configuration?.taskPushNotificationConfig) {
      requirePush(c.agent);
      pushConfig = preparePushConfig(req.configuration.taskPushNotificationConfig, PUSH_FIELD);
      await checkPushUrl(deps, pushConfig, PUSH_FIELD);
    }
    const params = ctx.values.get(serviceParamsKey);
    const options: RunOptions = {
      metadata: req.metadata,
      pushConfig,
      version: pushVersion(params.version),
      extensions: activatedExtensions(c.agent, params.extensions),
      record: claim.record,
      traceContext: ctx.values.get(traceContextKey),
    };
    const existing = c.message.taskId ? await continuable(deps, c.scope, c.message) : undefined;
    // A message that starts an agent run counts against the tenant's runs; one that joins a run does not.
    if (!existing || !(deps.engine.hasRun(c.scope, existing.id) || existing.runningElsewhere)) {
      const limit = deps.limits.maxTasksInFlightPerTenant;
      if (deps.engine.runsOf(c.scope.tenant) >= limit) throw limitReached("tasks in flight per tenant", limit, "maxTasksInFlightPerTenant");
    }
    // Written out, not `{ ...c, options, … }`: a spread that adds keys gives each object a hidden class of its own (docs/hot-path-objects.md).
    return { scope: c.scope, agent: c.agent, message: c.message, historyLength: c.historyLength, returnImmediately: c.returnImmediately, options, claim, existing };
  } catch (e) {
    claim.release();
    throw e;
  }
}

/** The task a follow-up names, if it may take one more message (§3.4.3, §3.1.1). */
async function continuable(deps: CoreDeps, scope: StoreScope, message: Message): Promise<NonNullable<PreparedSend["existing"]>> {
  const head = await deps.store.getHead(scope, message.taskId);
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
  return { id: head.id, contextId: head.contextId, state: head.state, runningElsewhere: head.runningElsewhere };
}

/** Starts the agent on a new task; the claim is released once the outcome is stored. */
async function start(deps: CoreDeps, p: PreparedSend, taskId: string, contextId: string) {
  try {
    return await deps.engine.startTask(p.scope, p.agent, taskId, p.message, contextId, p.options);
  } finally {
    p.claim.release();
  }
}

/** The message joins its task; the outcome is stored (in the engine's batch) before the claim goes. */
async function join(deps: CoreDeps, p: PreparedSend, existing: NonNullable<PreparedSend["existing"]>, historyLength?: number) {
  try {
    return await deps.engine.continueTask(p.scope, p.agent, existing, p.message, p.options, { historyLength });
  } finally {
    p.claim.release();
  }
}

/**
 * The ledger's answer for a send: §3.3.1 retries by messageId when the
 * agent opts in (config `retries.byMessageId`), and an Idempotency-Key
 * header (gRPC/Connect metadata) whatever the setting.
 */
function claimSend(deps: CoreDeps, ctx: HandlerContext, c: CheckedSend): Promise<SendClaim | PriorSend> {
  const policy = c.agent.retries ? Object.assign({}, deps.retries, c.agent.retries) : deps.retries;
  return deps.sends.claim(c.scope, sendKeyOf(c.message, requestHeaderValue(ctx, IDEMPOTENCY_KEY_HEADER), policy), c.message);
}

/** What a SendMessage answers with: a direct Message, or the task it created or continued, read once it settled. */
type SendOutcome =
  | { readonly reply: Message }
  | { readonly reply?: undefined; readonly scope: StoreScope; readonly taskId: string; readonly contextId?: string; readonly historyLength?: number };

/** §3.1.1: runs the send and waits (unless returnImmediately) until its task settles; a direct Message instead when the agent answered with one. */
async function send(deps: CoreDeps, ctx: HandlerContext, req: SendMessageRequest): Promise<SendOutcome> {
  const c = check(deps, ctx, req);
  const claim = await claimSend(deps, ctx, c);
  let taskId: string;
  let contextId: string | undefined;
  if (claim.kind === "prior") {
    // §3.3.1: a retry gets the first attempt's outcome, as it stands now.
    if (claim.sent.reply) return { reply: claim.sent.reply };
    taskId = priorTaskId(claim.sent);
  } else {
    const p = await prepare(deps, ctx, req, c, claim);
    if (p.existing) {
      taskId = p.existing.id;
      contextId = p.existing.contextId;
      await join(deps, p, p.existing);
    } else {
      taskId = newTaskId();
      contextId = p.message.contextId || newContextId();
      const first = await start(deps, p, taskId, contextId);
      if (first.kind === "message") return { reply: first.message };
    }
  }
  // §3.2.2: blocking by default, until terminal or interrupted.
  if (!c.returnImmediately) await deps.engine.waitSettled(c.scope, taskId, () => ctx.signal);
  // Both waits above end only after a commit (the settled event and the first outcome are announced then), so a networked store shows what they saw.
  return { scope: c.scope, taskId, contextId, historyLength: c.historyLength };
}

/** §3.1.1: a Task (after it settles, unless returnImmediately) or a direct Message. */
export async function sendMessage(deps: CoreDeps, ctx: HandlerContext, req: SendMessageRequest): Promise<SendMessageResponse> {
  const o = await send(deps, ctx, req);
  if (o.reply) return create(SendMessageResponseSchema, { payload: { case: "message", value: o.reply } });
  const task = await deps.store.getTask(o.scope, o.taskId, { historyLength: o.historyLength });
  if (!task) throw taskNotFound(o.taskId);
  return create(SendMessageResponseSchema, { payload: { case: "task", value: task } });
}

/** The same answer as sendMessage, in protobuf binary: the task as the store holds it, never decoded (wire-answer.ts). */
export async function sendMessageWire(deps: CoreDeps, ctx: HandlerContext, req: SendMessageRequest): Promise<WireAnswer> {
  const o = await send(deps, ctx, req);
  if (o.reply) return messageAnswer(o.reply);
  const task = await readTaskWire(deps.store, o.scope, o.taskId, { historyLength: o.historyLength });
  if (!task) throw taskNotFound(o.taskId);
  return taskAnswer(task, o.taskId, o.contextId);
}

/**
 * §3.1.2: the Task first (or one Message, then the end), then its updates
 * in order, ending after a terminal or interrupted state.
 */
export async function* sendStreamingMessage(deps: CoreDeps, ctx: HandlerContext, req: SendMessageRequest): AsyncGenerator<SequencedEvent> {
  const c = check(deps, ctx, req);
  requireStreaming(c.agent);
  const release = deps.streams.acquire(c.scope.tenant);
  try {
    yield* streamSend(deps, ctx, req, c);
  } catch (e) {
    // A stream read from an unreachable store ends UNAVAILABLE, not Internal.
    throw clientError(e);
  } finally {
    release();
  }
}

async function* streamSend(deps: CoreDeps, ctx: HandlerContext, req: SendMessageRequest, c: CheckedSend): AsyncGenerator<SequencedEvent> {
  const claim = await claimSend(deps, ctx, c);
  if (claim.kind === "prior") {
    if (claim.sent.reply) {
      yield { seq: 0, event: create(StreamResponseSchema, { payload: { case: "message", value: claim.sent.reply } }) };
      return;
    }
    // §3.3.1: a retried stream follows the first attempt's task from where it stands.
    const taskId = priorTaskId(claim.sent);
    const queue = listen(deps.engine, c.scope, taskId, deps.limits, ctx);
    let snap;
    try {
      snap = await deps.store.snapshot(c.scope, taskId, { historyLength: c.historyLength });
    } catch (e) {
      queue.close();
      throw e;
    }
    if (!snap) {
      queue.close();
      throw taskNotFound(taskId);
    }
    const settled = isSettled(snap.task.status?.state ?? 0);
    const head = [{ seq: snap.seq, event: create(StreamResponseSchema, { payload: { case: "task", value: snap.task } }), settled }];
    yield* follow(queue, { head, work: deps.engine.work, log: logPager(deps.store, c.scope, taskId) }, ctx.signal);
    return;
  }
  const p = await prepare(deps, ctx, req, c, claim);
  if (p.existing) {
    // Listen before continuing: the snapshot and the tail meet by seq (what both hold is skipped once).
    const queue = listen(deps.engine, p.scope, p.existing.id, deps.limits, ctx);
    let snap;
    try {
      snap = await join(deps, p, p.existing, p.historyLength);
    } catch (e) {
      queue.close();
      throw e;
    }
    const head = { seq: snap.seq, event: create(StreamResponseSchema, { payload: { case: "task", value: snap.task } }), settled: false };
    yield* follow(queue, { head: [head], work: deps.engine.work, log: logPager(deps.store, p.scope, p.existing.id) }, ctx.signal);
    return;
  }
  const taskId = newTaskId();
  const queue = listen(deps.engine, p.scope, taskId, deps.limits, ctx);
  let first;
  try {
    first = await start(deps, p, taskId, p.message.contextId || newContextId());
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
  yield* follow(queue, { work: deps.engine.work, log: logPager(deps.store, p.scope, taskId) }, ctx.signal);
}

/** The task a prior send led to; a record has a task or a reply, never neither. */
function priorTaskId(sent: SentMessage): string {
  if (!sent.taskId) throw new A2AError("Internal", `the outcome of the send with ${sent.key.by} ${sent.key.value} was recorded without a task or a reply`);
  return sent.taskId;
}
