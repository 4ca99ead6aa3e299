import { randomUUID } from "node:crypto";
import { ClientFactory, JsonRpcTransportFactory, RestTransportFactory, type Client } from "@a2a-js/sdk/client";

// @a2a-js/sdk's request types are plain interfaces with every field present; these build them.

/** An SDK-shaped user Message with one text part, and any overrides. */
export const sdkMessage = (text: string, extra: Record<string, unknown> = {}) => ({
  messageId: randomUUID(),
  contextId: "",
  taskId: "",
  role: 1, // ROLE_USER
  parts: [{ content: { $case: "text" as const, value: text }, metadata: undefined, filename: "", mediaType: "" }],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
  ...extra,
});

/** An SDK-shaped SendMessageRequest of one text message (message overrides in `extra`). */
export const sdkSend = (text: string, extra: Record<string, unknown> = {}, configuration?: Record<string, unknown>) =>
  ({ tenant: "", message: sdkMessage(text, extra), configuration, metadata: undefined }) as never;

/** An SDK-shaped SendMessageConfiguration that returns the task at once. */
export const returnImmediately = { acceptedOutputModes: [], historyLength: undefined, returnImmediately: true, taskPushNotificationConfig: undefined };

/** The numeric TaskState of an SDK task. */
export const stateOf = (task: any) => task.status?.state as number;
/** TaskState.COMPLETED as the SDK numbers it. */
export const COMPLETED = 3;
/** TaskState.CANCELED as the SDK numbers it. */
export const CANCELED = 5;

/** An SDK client built from the hub's well-known card, speaking only the one binding. */
export function sdkClient(url: string, binding: "jsonrpc" | "rest"): Promise<Client> {
  const transport = binding === "jsonrpc" ? new JsonRpcTransportFactory() : new RestTransportFactory();
  return new ClientFactory({ transports: [transport] }).createFromUrl(url);
}
