import type { Context } from "@opentelemetry/api";
import type { Message, Task } from "../../../gen/a2a/v1/a2a_pb.js";
import type { ExecutionContext } from "../../execution/index.js";
import type { Run } from "./run.js";

/**
 * What an agent is given to run with (its ExecutionContext).
 *
 * A class, not an object literal, because of `signal`: it is read on
 * demand, since AbortController makes its signal (an EventTarget) on
 * first read and an agent that finishes in one turn
 * never reads it. A getter written in an object literal is a new function
 * for every object, which V8 keeps in a hidden class of that object's own,
 * in the old generation: each run's closure, and through it the run and
 * the request behind it, then outlived every young-generation collection
 * until the next full one (docs/performance-notes.md). On the prototype
 * the getter is one function for all runs (an
 * agent that copies its context with a spread no longer copies `signal`:
 * it reads it from the context it was given).
 */
export class RunContext implements ExecutionContext {
  readonly taskId: string;
  readonly contextId: string;
  readonly message: Message;
  readonly tenant: string;
  readonly agentId: string;
  readonly extensions: readonly string[];
  readonly traceContext: Context | undefined;
  /** Private in the language, not only to TypeScript: an agent that logs or serializes its context must not find the run in it. */
  readonly #run: Run;

  constructor(
    run: Run,
    readonly task: Task | undefined,
  ) {
    this.#run = run;
    this.taskId = run.taskId;
    this.contextId = run.contextId;
    this.message = run.userMessage;
    this.tenant = run.scope.tenant;
    this.agentId = run.agent.id;
    this.extensions = run.options.extensions;
    this.traceContext = run.options.traceContext;
  }

  get signal(): AbortSignal {
    return this.#run.controller.signal;
  }
}
