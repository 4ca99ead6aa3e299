/** The parts TaskEngine (../task-engine.ts) is composed of, one concept a file. */
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
