import type { Logger } from "../../src/core/index.js";
import type { FuzzPool } from "./fuzz-arbitraries.js";
import type { FuzzLimits } from "./fuzz-oracle.js";
import { post, rpc } from "./jsonrpc-requests.js";
import { userMessage } from "./json-messages.js";
import { startTestHub, type TestHub } from "./test-hub.js";
import { startReceiver, type WebhookReceiver } from "./webhook-receiver.js";

/** A hub to fuzz: known tasks and push configs to aim at, a webhook for deliveries, and the errors it logged. */
export interface FuzzHub {
  readonly t: TestHub;
  readonly pool: FuzzPool;
  readonly limits: FuzzLimits;
  /** Error-level log entries: a facade logs one for every failure it did not expect. */
  readonly loggedErrors: string[];
  stop(): Promise<void>;
}

/**
 * Starts a hub with a small body limit (so that "too large" is reached
 * cheaply), push delivery allowed to a loopback webhook, and a few tasks
 * in known states made over JSON-RPC.
 */
export async function startFuzzHub(limits: FuzzLimits = { maxBodyBytes: 256 * 1024, maxJsonDepth: 64 }): Promise<FuzzHub> {
  const loggedErrors: string[] = [];
  const logger: Logger = {
    info() {},
    warn() {},
    error: (message, fields) => void loggedErrors.push(`${message} ${JSON.stringify(fields ?? {}).slice(0, 2_000)}`),
  };
  const receiver: WebhookReceiver = await startReceiver();
  const t = await startTestHub({ logger, ...limits, push: { allowCidrs: ["127.0.0.1/32"], retry: { baseMs: 10, capMs: 10, attempts: 2 } } });
  const send = async (text: string): Promise<{ id: string; contextId: string }> => {
    const r = await post(t.url, rpc("SendMessage", { message: userMessage(text) }));
    const task = r.json?.result?.task;
    if (!task) throw new Error(`could not make a ${text} task: ${r.text}`);
    return { id: task.id, contextId: task.contextId };
  };
  const completed = await send("hello");
  const failed = await send("fail");
  const interrupted = await send("input-required");
  for (const id of ["cfg-1", "cfg-2"]) {
    const config = await post(t.url, rpc("CreateTaskPushNotificationConfig", { taskId: interrupted.id, id, url: receiver.url }));
    if (!config.json?.result) throw new Error(`could not make a push config: ${config.text}`);
  }
  return {
    t,
    limits,
    loggedErrors,
    pool: {
      taskIds: [completed.id, failed.id, interrupted.id],
      subscribeIds: [completed.id, failed.id],
      pushConfigs: [[interrupted.id, "cfg-1"]],
      deletableConfig: [interrupted.id, "cfg-2"],
      contextIds: [completed.contextId, interrupted.contextId],
      pushUrl: receiver.url,
    },
    stop: async () => {
      await t.stop();
      await receiver.close();
    },
  };
}
