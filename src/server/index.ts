/** The server: one port for every binding, and its lifecycle. */
export { defaultAgents, SERVED_INTERFACES, startHub, type Hub, type HubContext, type HubMetricsOptions, type HubOptions } from "./hub.js";
export { accessPolicyOf, AGENT_FACTORIES, hubOptionsFromConfig, type AgentFactory } from "./hub-from-config.js";
export { buildConfig, ConfigError, DEFAULT_CONFIG, LIMIT_KEYS, limitEnvName, readConfigFile, type ConfigSource, type HubConfig } from "./config/index.js";
export { AGENT_BASE, agentInterfaces, ROOT_INTERFACES } from "./card-routes.js";
export { createRequestDispatch, type DispatchOptions, type RequestDispatch, type Route } from "./request-dispatch.js";
export { createOnePortServer, type OnePortServer } from "./one-port.js";
export { DEFAULT_JWKS_PATH, WELL_KNOWN_CARD_PATH, type CardSigning } from "./card-responses.js";
export type { HttpRequest, HttpResponse } from "../bindings/http/index.js";
export { isValidHost, requestOrigin, TrustedProxies, type OriginPolicy, type RequestOrigin } from "./request-origin.js";
