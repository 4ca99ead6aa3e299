import type { TaskStore } from "../store/index.js";
import type { AgentDirectory } from "./agent-directory.js";
import type { Logger } from "./logger.js";
import type { TaskEngine } from "./task-engine.js";

/** Limits the operations enforce; each is configurable. */
export interface CoreLimits {
  /** Push configs one task may hold (issue: at most 50 by default). */
  readonly pushConfigsPerTask: number;
}

/** What every operation is given: nothing global, everything passed in. */
export interface CoreDeps {
  readonly store: TaskStore;
  readonly engine: TaskEngine;
  readonly agents: AgentDirectory;
  readonly logger: Logger;
  readonly limits: CoreLimits;
  /** §13.2: why a webhook URL may not be used (resolved and checked), or undefined when it may. */
  readonly pushUrlRefusal?: (url: string) => Promise<string | undefined>;
}

/** Defaults of CoreLimits. */
export const DEFAULT_LIMITS: CoreLimits = { pushConfigsPerTask: 50 };
