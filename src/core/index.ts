/** The core: every A2A semantic, implemented once. Bindings import only this door. */
export { A2AError, invalidParams, isA2AError, taskNotFound, type A2AErrorOptions, type FieldViolation } from "../protocol/index.js";
export { A2A_ERROR_DOMAIN, ERROR_TABLE, errorRow, type A2AErrorName, type ErrorRow } from "../protocol/index.js";
export type { A2AHandlers, A2AServiceApi, A2AStreams, A2AWireAnswers, SequencedEvent } from "./a2a-handlers.js";
export { WireAnswer } from "./wire-answer.js";
export {
  callScopeKey,
  DEFAULT_TENANT,
  facadeCallContext,
  overflowDropKey,
  scopeOf,
  serviceParamsKey,
  traceContextKey,
  type CallScope,
  type FacadeCallInit,
  type ServiceParams,
} from "./call-context.js";
export { callContext, requestHeaderValue, type CallContextInit } from "./handler-context.js";
export { createA2ACore, type A2ACore, type CoreOptions } from "./a2a-service.js";
export { AgentDirectory } from "./agent-directory.js";
export { PUSH_DELIVERY_STATE_URI } from "./push-delivery-extension.js";
export type { HostedAgent } from "./hosted-agent.js";
export { DEFAULT_LIMITS, type CoreLimits } from "./core-deps.js";
export { DEFAULT_RETRY_POLICY, IDEMPOTENCY_KEY_HEADER, type RetryPolicy } from "./send-ledger.js";
export { silentLogger, stderrLogger, type Logger } from "./logger.js";
export { isInterrupted, isSettled, isTerminal, stateName } from "../protocol/index.js";
export { PAGE_SIZE } from "./operations/index.js";
