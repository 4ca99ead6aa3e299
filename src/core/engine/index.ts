/**
 * The engine: TaskEngine runs agents on tasks and writes what they publish
 * through the turn's UnitOfWork (group commit); the parts it is composed
 * of, one concept a file, are exported for their own tests.
 */
export { TaskEngine } from "./task-engine.js";
export { UnitOfWork } from "./unit-of-work.js";
export { AgentEvents } from "./agent-events.js";
export { CancelProtocol } from "./cancel-protocol.js";
export { FleetRelay } from "./fleet-relay.js";
export { LostWrites } from "./lost-writes.js";
export { OpenStreams, type OpenStream } from "./open-streams.js";
export { recoverInFlight, sweepOrphans } from "./recovery.js";
export { RunLifecycle } from "./run-lifecycle.js";
export { RunRegistry } from "./run-registry.js";
export { addressed, newRun, taskKey, type FirstOutcome, type Run, type RunOptions } from "./run.js";
export { busEvent, TaskWriter, type BusEvent } from "./task-writer.js";
export { waitSettled, type SettledWait } from "./wait-settled.js";
