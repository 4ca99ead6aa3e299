import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { create } from "@bufbuild/protobuf";
import { AgentCardSchema, AgentSkillSchema, MessageSchema, Role, StreamResponseSchema, type AgentCard, type Message, type StreamResponse, type Task } from "../../../gen/a2a/v1/a2a_pb.js";
import { A2AClient, BINDING_NAMES, clientFailureOf, type BindingName, type CallOptions, type TokenSource } from "../../client/index.js";
import type { AgentExecutor, EventSink, ExecutionContext } from "../../execution/index.js";
import { RemoteMirror, type RemoteLink } from "./remote-mirror.js";

/** Where a remote agent forwards to, and how. */
export interface RemoteAgentOptions {
  /** The remote agent's card URL, or its base URL (the well-known card is read). */
  readonly url: string;
  /** Bearer token for the remote; the loaders take it from an environment variable, never from a file. */
  readonly token?: string;
  /** Where tokens for the remote come from instead (OAuth 2.0 client credentials): refreshed before expiry and after a 401. */
  readonly credentials?: TokenSource;
  /** The binding to try first; the others remain fallbacks in the usual order. */
  readonly binding?: BindingName;
  /** Deadline of each call to the remote until it answers (ms); default 60 s. A stream runs as long as its task. */
  readonly timeoutMs?: number;
}

/** How long a canceled run waits for the remote to name its task, so that the cancel can reach it (ms). */
const FIRST_EVENT_GRACE_MS = 2_000;
/** Polling of a remote that cannot stream: first and longest interval (ms). */
const POLL_MIN_MS = 250;
const POLL_MAX_MS = 2_000;
/** How often a broken remote stream is resumed with SubscribeToTask before the task fails. */
const RESUBSCRIBE_ATTEMPTS = 2;
/** Bound on remembered remote tasks and contexts. */
const MAX_LINKS = 10_000;

/** A run in progress: how to reach its remote task. */
interface Run {
  link?: RemoteLink;
  /** Resolves with the remote task once named, or undefined when the run ends without one. */
  readonly named: Promise<RemoteLink | undefined>;
  name(link: RemoteLink | undefined): void;
  /** Stops the remote stream. */
  readonly stop: AbortController;
  /** Every call of the run: stopped with it, and in its trace (the agent run's context, past the awaits). */
  readonly call: CallOptions;
  /** The cancel hook's work, once CancelTask reached this run. */
  canceling?: Promise<void>;
}

/**
 * Delegates each message to a remote A2A agent with the outbound
 * client, and streams the remote's events back as the local task's own
 * (see RemoteMirror). Only the message parts cross: not the caller's
 * token (the remote gets the configured one), tenant, metadata,
 * extensions or references to other tasks (arbiter's "Tenancy and trust
 * posture"). A follow-up on an interrupted task goes to the same remote
 * task; CancelTask cancels the remote task too. Because the hub serves
 * the local agent on every binding, this also bridges protocols: a
 * JSON-RPC-only or v0.3 remote becomes callable over gRPC, Connect, REST
 * and v1.0 JSON-RPC.
 *
 * The local→remote task links live in memory: after a hub restart a
 * follow-up on an interrupted delegated task fails, saying why.
 */
export class RemoteAgent implements AgentExecutor {
  private client: Promise<A2AClient> | undefined;
  private readonly links = new Map<string, RemoteLink>();
  private readonly contexts = new Map<string, string>();
  private readonly runs = new Map<string, Run>();
  private cardListener: ((card: AgentCard) => void) | undefined;

  constructor(readonly options: RemoteAgentOptions) {
    new URL(options.url); // refuses a malformed URL now rather than at the first message
  }

  async execute(ctx: ExecutionContext, events: EventSink): Promise<void> {
    const key = taskKey(ctx);
    const known = this.links.get(key);
    const mirror = new RemoteMirror(events, ctx.task);
    if (ctx.task && !known) {
      mirror.fail("This task was delegated to a remote agent whose task the hub no longer knows (the hub restarted); start a new task.");
      return;
    }
    const run = this.startRun(key, ctx);
    try {
      const client = await this.connect();
      const message = this.outbound(ctx.message, known, this.contexts.get(contextKey(ctx)));
      if (client.card.capabilities?.streaming === true) await this.streamed(client, message, mirror, run, ctx);
      else await this.polled(client, message, mirror, run, ctx);
      if (!mirror.settled && !ctx.signal.aborted) mirror.fail("The remote agent's stream ended before its task finished.");
    } catch (e) {
      if (ctx.signal.aborted) return;
      if (isUnreachable(e)) this.client = undefined; // the card is read again for the next message
      mirror.fail(`The remote agent failed: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      run.name(mirror.link);
      if (run.canceling) {
        // Return only after the cancel hook: a run that ends while CancelTask is still
        // under way would be read as one that gave up (the task must end CANCELED, §3.1.5).
        await run.canceling;
        await new Promise((r) => setImmediate(r));
      }
      this.runs.delete(key);
      const link = mirror.link;
      if (link) {
        remember(this.contexts, contextKey(ctx), link.contextId);
        if (mirror.finished || ctx.signal.aborted) this.links.delete(key);
        else remember(this.links, key, link);
      }
    }
  }

  /** §3.1.5: cancels the remote task as well (the local one ends CANCELED whatever happens here). */
  cancel(ctx: ExecutionContext, _events: EventSink): Promise<void> {
    const run = this.runs.get(taskKey(ctx));
    const work = this.cancelRemote(ctx, run);
    if (run) run.canceling = work;
    return work;
  }

  private async cancelRemote(ctx: ExecutionContext, run: Run | undefined): Promise<void> {
    const key = taskKey(ctx);
    const link = run?.link ?? (run ? await Promise.race([run.named, sleep(FIRST_EVENT_GRACE_MS, undefined)]) : undefined) ?? this.links.get(key);
    run?.stop.abort();
    this.links.delete(key);
    if (!link) return;
    try {
      const client = await this.connect();
      await client.cancel(link.taskId, { timeoutMs: 5_000, traceContext: ctx.traceContext });
    } catch {
      // Already finished remotely (TaskNotCancelable), or unreachable: the local task is canceled regardless.
    }
  }

  /**
   * Hands `listener` the remote's card each time it is read: now, in the
   * background, and again after a reconnect. A remote down at start is read
   * at the first message that reaches it.
   */
  watchCard(listener: (card: AgentCard) => void): void {
    this.cardListener = listener;
    this.connect().catch(() => undefined);
  }

  /** The client, resolving the remote card on first use. */
  private connect(): Promise<A2AClient> {
    if (!this.client) {
      const preferred = this.options.binding;
      const bindings = preferred ? [preferred, ...BINDING_NAMES.filter((b) => b !== preferred)] : BINDING_NAMES;
      this.client = A2AClient.connect(this.options.url, { token: this.options.token, credentials: this.options.credentials, bindings, timeoutMs: this.options.timeoutMs });
      this.client.then(
        (client) => this.cardListener?.(client.card),
        () => (this.client = undefined),
      );
    }
    return this.client;
  }

  /** The message the remote sees: the parts, fresh ids, and the remote's own task and context. */
  private outbound(message: Message, link: RemoteLink | undefined, remoteContext: string | undefined): Message {
    // Built field by field: whatever else a message carries stays here.
    return create(MessageSchema, { messageId: randomUUID(), role: Role.USER, parts: message.parts, taskId: link?.taskId ?? "", contextId: link?.contextId ?? remoteContext ?? "" });
  }

  private startRun(key: string, ctx: ExecutionContext): Run {
    let resolve!: (link: RemoteLink | undefined) => void;
    const named = new Promise<RemoteLink | undefined>((r) => (resolve = r));
    const stop = new AbortController();
    const run: Run = { named, name: (link) => resolve(link), stop, call: { signal: stop.signal, traceContext: ctx.traceContext } };
    this.runs.set(key, run);
    // On cancel or shutdown: stop listening at once when the remote task is known, else
    // give the remote a moment to name it so that the cancel hook can reach it.
    ctx.signal.addEventListener(
      "abort",
      () => {
        if (run.link) run.stop.abort();
        else setTimeout(() => run.stop.abort(), FIRST_EVENT_GRACE_MS).unref();
      },
      { once: true },
    );
    return run;
  }

  private async streamed(client: A2AClient, message: Message, mirror: RemoteMirror, run: Run, ctx: ExecutionContext): Promise<void> {
    const follow = async (events: AsyncIterable<StreamResponse>): Promise<void> => {
      for await (const event of events) {
        mirror.apply(event);
        if (mirror.link && !run.link) {
          run.link = mirror.link;
          run.name(mirror.link);
          if (ctx.signal.aborted) return run.stop.abort();
        }
        if (mirror.settled) return;
      }
    };
    await follow(client.stream({ message }, run.call));
    // §3.1.6: a stream that broke off is resumed from the remote task's current state.
    for (let attempt = 0; attempt < RESUBSCRIBE_ATTEMPTS && !mirror.settled && mirror.link && !ctx.signal.aborted; attempt++) {
      await follow(client.subscribe(mirror.link.taskId, run.call));
    }
  }

  private async polled(client: A2AClient, message: Message, mirror: RemoteMirror, run: Run, ctx: ExecutionContext): Promise<void> {
    // A remote without streaming: send without blocking (§3.2.2), then follow the task by GetTask.
    const first = await client.send({ message, configuration: { returnImmediately: true } }, run.call);
    if (first.payload.case === "message") mirror.apply(create(StreamResponseSchema, { payload: { case: "message", value: first.payload.value } }));
    else if (first.payload.case === "task") mirror.apply(snapshot(first.payload.value));
    run.link = mirror.link;
    run.name(mirror.link);
    let wait = POLL_MIN_MS;
    while (!mirror.settled && mirror.link && !ctx.signal.aborted) {
      await sleep(wait, undefined, run.call).catch(() => undefined);
      if (ctx.signal.aborted) return;
      const task = await client.get(mirror.link.taskId, run.call);
      mirror.apply(snapshot(task));
      wait = Math.min(wait * 2, POLL_MAX_MS);
    }
  }
}

function snapshot(task: Task): StreamResponse {
  return create(StreamResponseSchema, { payload: { case: "task", value: task } });
}

function taskKey(ctx: ExecutionContext): string {
  return `${ctx.tenant}\u0000${ctx.agentId}\u0000${ctx.taskId}`;
}

function contextKey(ctx: ExecutionContext): string {
  return `${ctx.tenant}\u0000${ctx.agentId}\u0000${ctx.contextId}`;
}

/** Map.set with an oldest-first bound. */
function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_LINKS) map.delete(map.keys().next().value!);
}

function isUnreachable(e: unknown): boolean {
  const kind = clientFailureOf(e);
  return kind === "UNAVAILABLE" || kind === "HTTP_STATUS" || kind === "UNAUTHENTICATED";
}

/**
 * The card the hub serves for a remote agent once the remote's own card is
 * read: its name, description, skills and modes, so that a caller sees what
 * it will reach. The capabilities stay the hub's (it streams and pushes for
 * any remote), and the remote's security and interfaces stay the remote's.
 */
export function bridgedCard(remote: AgentCard, url: string): AgentCard {
  const base = remoteCard({ name: remote.name, description: remote.description || undefined, url });
  return create(AgentCardSchema, {
    ...base,
    version: remote.version || base.version,
    provider: remote.provider,
    documentationUrl: remote.documentationUrl,
    iconUrl: remote.iconUrl,
    defaultInputModes: remote.defaultInputModes.length > 0 ? [...remote.defaultInputModes] : base.defaultInputModes,
    defaultOutputModes: remote.defaultOutputModes.length > 0 ? [...remote.defaultOutputModes] : base.defaultOutputModes,
    skills: remote.skills.length > 0 ? remote.skills.map((s) => create(AgentSkillSchema, { ...s, securityRequirements: [] })) : base.skills,
  });
}

/** Card facts of a remote agent as the hub serves it until the remote's card is read; interfaces are added by the cards layer, a config may override the rest. */
export function remoteCard(options: { name: string; description?: string; url: string }): AgentCard {
  return create(AgentCardSchema, {
    name: options.name,
    description: options.description ?? `Delegates to the A2A agent at ${options.url}.`,
    version: "0.1.0",
    capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: false },
    // The remote decides what it accepts and answers ContentTypeNotSupported itself.
    defaultInputModes: ["*/*"],
    defaultOutputModes: ["*/*"],
    skills: [{ id: "delegate", name: "Delegate", description: `Forwards the message to ${options.url}.`, tags: ["remote", "a2a"] }],
  });
}
