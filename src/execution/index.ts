/** The execution layer: the AgentExecutor contract and the plumbing that moves events. */
export type { AgentExecutor, ArtifactOptions, EventSink, ExecutionContext } from "./agent-executor.js";
export { EventBus } from "./event-bus.js";
export { EventQueue, QueueOverflowError, type EventQueueOptions, type OverflowDrop } from "./event-queue.js";
