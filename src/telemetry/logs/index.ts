/** Logs (pino): the hub's levelled logger and the one line per request it writes. */
export { createHubLogger, LOG_LEVELS, requestLog, type HubLoggerOptions, type LevelledLogger, type RequestLogLine } from "./hub-logger.js";
