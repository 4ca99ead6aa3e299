/** Hub configuration: a JSON or YAML file, A2A_HUB_* variables and flags. */
export { AGENT_KINDS, buildConfig, type ConfigOverrides } from "./build-config.js";
export { ConfigError } from "./config-error.js";
export { DEFAULT_CONFIG, type AgentCardConfig, type AgentConfig, type HubConfig, type RetriesConfig, type StoreConfig, type TenantConfig } from "./hub-config.js";
export { readConfigFile, type ConfigSource } from "./read-config-file.js";
export { LIMIT_KEYS, limitEnvName, type LimitKey, type LimitsConfig } from "./limits-config.js";
export { programProblem } from "./program-check.js";
export { readTlsFiles, type TlsFiles } from "./tls-files.js";
export { isTrustedProxySpec, TRUSTED_PROXY_HINT } from "./trusted-proxy.js";
export { DURATION_HINT, parseDuration } from "./duration.js";
