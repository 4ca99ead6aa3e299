/** The server: one port for every binding, and its lifecycle. */
export { defaultAgents, SERVED_INTERFACES, startHub, type Hub, type HubContext, type HubOptions } from "./hub.js";
export { accessPolicyOf, AGENT_FACTORIES, hubOptionsFromConfig, type AgentFactory } from "./hub-from-config.js";
export { buildConfig, ConfigError, DEFAULT_CONFIG, LIMIT_KEYS, limitEnvName, readConfigFile, type ConfigSource, type HubConfig } from "./config/index.js";
export { createHttpRouter, AGENT_BASE, agentInterfaces, ROOT_INTERFACES } from "./http-router.js";
export { createOnePortServer, type OnePortServer } from "./one-port.js";
export { DEFAULT_JWKS_PATH, WELL_KNOWN_CARD_PATH, type CardSigning, type HttpHandler, type HttpRequest, type HttpResponse } from "./card-responses.js";
export { isValidHost, requestOrigin, TrustedProxies, type OriginPolicy, type RequestOrigin } from "./request-origin.js";
