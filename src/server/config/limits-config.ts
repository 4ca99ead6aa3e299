/**
 * Every limit the hub enforces, as the config file's `limits:` section and
 * the A2A_HUB_LIMIT_* variables name them. A request over a limit is
 * refused with a protocol error naming the key (`limits.<key>`).
 */
export const LIMIT_KEYS = [
  // Transport (the HTTP facades and the one port).
  "maxBodyBytes",
  "maxJsonDepth",
  "headersTimeoutMs",
  "bodyTimeoutMs",
  // The door (connections and HTTP/2 sessions, before any request is read).
  "maxConnections",
  "maxConnectionsPerAddress",
  "maxStreamsPerConnection",
  "maxSessionMemoryMiB",
  "maxHeaderBytes",
  "maxRefusalsPerAddress",
  // Core (every binding).
  "maxParts",
  "maxTextPartBytes",
  "maxMetadataBytes",
  "maxHistoryMessages",
  "pushConfigsPerTask",
  "maxStreamsPerTenant",
  "maxTasksInFlightPerTenant",
  "streamBufferEvents",
  "streamStallMs",
] as const;

export type LimitKey = (typeof LIMIT_KEYS)[number];

/** Configured limits; an absent key keeps the built-in default. */
export type LimitsConfig = Partial<Record<LimitKey, number>>;

/** The environment variable of a limit: maxBodyBytes → A2A_HUB_LIMIT_MAX_BODY_BYTES. */
export function limitEnvName(key: LimitKey): string {
  return `A2A_HUB_LIMIT_${key.replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase()}`;
}

/** The smallest and largest value a limit may be set to. */
export const LIMIT_RANGE: readonly [number, number] = [1, 2 ** 40];
