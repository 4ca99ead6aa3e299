import { clientError } from "./store-outage.js";
import type { HandlerContext } from "@connectrpc/connect";
import type { TaskStore } from "../store/index.js";
import type { A2AServiceApi, SequencedEvent } from "./a2a-handlers.js";
import { AgentDirectory } from "./agent-directory.js";
import { DEFAULT_LIMITS, type CoreDeps, type CoreLimits } from "./core-deps.js";
import type { HostedAgent } from "./hosted-agent.js";
import { stderrLogger, type Logger } from "./logger.js";
import * as op from "./operations/index.js";
import { DEFAULT_RETRY_POLICY, SendLedger, type RetryPolicy } from "./send-ledger.js";
import { TenantCounter } from "./tenant-counter.js";
import { TaskEngine, type UnitOfWork } from "./engine/index.js";

/** What the core needs to serve A2A. */
export interface CoreOptions {
  readonly store: TaskStore;
  readonly agents: readonly HostedAgent[];
  readonly defaultAgentId?: string;
  readonly logger?: Logger;
  readonly limits?: Partial<CoreLimits>;
  /** Hub-wide retry handling (default: every send is new); agents may override it. */
  readonly retries?: Partial<RetryPolicy>;
  /** §13.2: checks webhook URLs when configs are created. */
  readonly pushUrlRefusal?: (url: string) => Promise<string | undefined>;
}

/** The running core: the service every binding calls, and the engine behind it. */
export interface A2ACore {
  readonly service: A2AServiceApi;
  readonly engine: TaskEngine;
  readonly agents: AgentDirectory;
  /** Stops agent runs; the store stays open for the caller to close. */
  stop(): Promise<void>;
  /** Settles once the tasks a previous process left in flight are failed (with how many); serve after it. */
  readonly recovered: Promise<number>;
}

async function* events(stream: AsyncIterable<SequencedEvent>) {
  try {
    for await (const e of stream) yield e.event;
  } catch (e) {
    throw clientError(e);
  }
}

/**
 * An answer leaves only once what it was read from is durable: a read made
 * while the turn's unit of work is open sees writes not yet committed
 * (group commit, engine/unit-of-work.ts), and nobody may be told of those first.
 */
function durably<Req, Res>(work: UnitOfWork, handler: (req: Req, ctx: HandlerContext) => Promise<Res>) {
  return async (req: Req, ctx: HandlerContext): Promise<Res> => {
    let answer: Res;
    try {
      answer = await handler(req, ctx);
    } catch (e) {
      if (work.isOpen) await work.durable().catch(() => undefined);
      throw clientError(e);
    }
    if (work.isOpen) await work.durable();
    return answer;
  };
}

/**
 * Builds the one implementation of A2AService. Tasks a previous process
 * left in flight are failed before the first call is served.
 */
export function createA2ACore(options: CoreOptions): A2ACore {
  const logger = options.logger ?? stderrLogger;
  const engine = new TaskEngine(options.store, logger);
  const agents = new AgentDirectory(options.agents, options.defaultAgentId);
  const limits: CoreLimits = { ...DEFAULT_LIMITS, ...options.limits };
  const deps: CoreDeps = {
    store: options.store,
    engine,
    agents,
    logger,
    limits,
    sends: new SendLedger(options.store),
    retries: { ...DEFAULT_RETRY_POLICY, ...options.retries },
    streams: new TenantCounter(limits.maxStreamsPerTenant, "open streams", "maxStreamsPerTenant"),
    pushUrlRefusal: options.pushUrlRefusal,
  };
  const recovered = engine.recover();
  engine.joinFleet();
  // Whoever serves awaits it; one that does not must not crash the process on a failure.
  recovered.catch((e: unknown) => logger.error("failing the tasks left in flight failed", { error: String(e) }));
  const work = engine.work;
  const service: A2AServiceApi = {
    sendMessage: durably(work, (req, ctx) => op.sendMessage(deps, ctx, req)),
    sendStreamingMessage: (req, ctx) => events(op.sendStreamingMessage(deps, ctx, req)),
    getTask: durably(work, (req, ctx) => op.getTask(deps, ctx, req)),
    listTasks: durably(work, (req, ctx) => op.listTasks(deps, ctx, req)),
    cancelTask: durably(work, (req, ctx) => op.cancelTask(deps, ctx, req)),
    subscribeToTask: (req, ctx) => events(op.subscribeToTask(deps, ctx, req)),
    createTaskPushNotificationConfig: durably(work, (req, ctx) => op.createPushConfig(deps, ctx, req)),
    getTaskPushNotificationConfig: durably(work, (req, ctx) => op.getPushConfig(deps, ctx, req)),
    listTaskPushNotificationConfigs: durably(work, (req, ctx) => op.listPushConfigs(deps, ctx, req)),
    deleteTaskPushNotificationConfig: durably(work, (req, ctx) => op.deletePushConfig(deps, ctx, req)),
    getExtendedAgentCard: (req, ctx) => op.getExtendedAgentCard(deps, ctx, req),
    sendStreamingMessageSequenced: (req, ctx: HandlerContext) => op.sendStreamingMessage(deps, ctx, req),
    sendMessageWire: durably(work, (req, ctx) => op.sendMessageWire(deps, ctx, req)),
    subscribeSequenced: (req, ctx: HandlerContext, afterSeq?: number) => op.subscribeToTask(deps, ctx, req, afterSeq),
  };
  return { service, engine, agents, recovered, stop: () => engine.stop() };
}
