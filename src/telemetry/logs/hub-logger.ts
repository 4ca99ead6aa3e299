import { createRequire } from "node:module";
import { pino, type Level, type Logger as Pino } from "pino";
import type PinoPretty from "pino-pretty";
import type { Logger } from "../../core/index.js";

/** Levels accepted by --log-level / A2A_HUB_LOG_LEVEL. */
export const LOG_LEVELS: readonly string[] = ["trace", "debug", "info", "warn", "error", "fatal", "silent"];

/** How the CLI's logger writes. */
export interface HubLoggerOptions {
  /** Lowest level written; default "info". */
  readonly level?: string;
  /** Human-readable lines instead of JSON; default: when the destination is a TTY. */
  readonly pretty?: boolean;
  /** Where lines go; default stderr. */
  readonly destination?: NodeJS.WritableStream & { isTTY?: boolean };
}

/** A Logger that can say whether a level is written, so callers skip building lines nobody reads. */
export interface LevelledLogger extends Logger {
  isLevelEnabled(level: string): boolean;
  /** The pino instance, for embedding. */
  readonly pino: Pino;
  /**
   * Writes an info line whose fields the hub built itself from values that
   * are never secret (the request log): without the redaction pass, which
   * walks every field of every line for the REDACT names and was a tenth
   * of all the memory a request allocated.
   */
  trustedInfo?(message: string, fields: Record<string, unknown>): void;
}

/** Fields that may carry secrets or message text; pino blanks them wherever a caller put them. */
const REDACT = ["authorization", "token", "credentials", "*.authorization", "*.token", "*.credentials", "headers.authorization"];

/**
 * The hub's structured log (pino): one JSON object per line on stderr
 * (pretty when stderr is a TTY), level, time, message and fields. Message
 * text and bearer tokens are never passed to it; secrets under the usual
 * names are redacted in case a caller slips.
 */
export function createHubLogger(options: HubLoggerOptions = {}): LevelledLogger {
  const destination = options.destination ?? process.stderr;
  const level = options.level ?? "info";
  if (!LOG_LEVELS.includes(level)) throw new Error(`unknown log level ${JSON.stringify(level)} (expected one of ${LOG_LEVELS.join(", ")})`);
  const usePretty = options.pretty ?? destination.isTTY === true;
  let buffered: ReturnType<typeof pino.destination> | undefined;
  const p = pino(
    {
      level,
      base: undefined,
      redact: { paths: REDACT, censor: "[redacted]" },
      timestamp: pino.stdTimeFunctions.isoTime,
      messageKey: "message",
      // "level":"error" rather than 50, and "message": the form the hub's lines always had, readable without pino's table.
      formatters: { level: (label) => ({ level: label }) },
    },
    usePretty
      ? // Loaded only for a terminal: a service writing JSON never pays for it.
        (createRequire(import.meta.url)("pino-pretty") as typeof PinoPretty)({ destination: destination as never, sync: true, colorize: true, messageKey: "message" })
      : destination === process.stderr
        ? (buffered = stderrLines())
        : destination,
  );
  // Warnings and errors are few and wanted at once (and before a crash): they go out now, with what waits before them.
  const now = buffered ? () => buffered!.flush() : () => {};
  const unredacted = p.child({}, { redact: [] });
  return {
    pino: p,
    isLevelEnabled: (l) => p.isLevelEnabled(l as Level),
    trustedInfo: (message, fields) => unredacted.info(fields, message),
    info: (message, fields) => p.info(fields ?? {}, message),
    warn: (message, fields) => {
      p.warn(fields ?? {}, message);
      now();
    },
    error: (message, fields) => {
      p.error(fields ?? {}, message);
      now();
    },
  };
}

/** How long a line may wait in the buffer before it is written (ms). */
const FLUSH_EVERY_MS = 100;

/**
 * The process's stderr through sonic-boom, in blocks: lines gather until
 * 4 KiB or the next flush, at most FLUSH_EVERY_MS later, and go out in
 * one write. One write per line (sonic-boom's default) cost a write on
 * the thread pool per request at low concurrency, a seventh of the CPU of
 * a SendMessage at one connection. pino flushes what is left at exit, and
 * the hub's warnings and errors are written at once; a process killed
 * outright loses at most the last tenth of a second of info lines.
 */
function stderrLines(): ReturnType<typeof pino.destination> {
  return pino.destination({ dest: 2, sync: false, minLength: 4096, periodicFlush: FLUSH_EVERY_MS });
}

/** What one finished A2A call is logged with (never message text, never tokens). */
export interface RequestLogLine {
  readonly binding: string;
  readonly method: string;
  readonly agent: string;
  readonly tenant: string;
  readonly taskId?: string;
  readonly contextId?: string;
  /** "ok" or the A2A error name. */
  readonly status: string;
  readonly durationMs: number;
  /** Events sent, for streams. */
  readonly events?: number;
  readonly traceId?: string;
}

/**
 * The writer of the request log when `logger` wants one line per request
 * (it says it writes info lines), else undefined. A plain Logger (which
 * cannot say) gets none, so an embedding application's logger is not
 * flooded and a silent one costs nothing.
 */
export function requestLog(logger: Logger): ((line: RequestLogLine) => void) | undefined {
  const l = logger as Partial<LevelledLogger>;
  if (typeof l.isLevelEnabled !== "function" || !l.isLevelEnabled("info")) return undefined;
  const trusted = l.trustedInfo;
  // The line's fields are the probe's own (request-outcome.ts): names, ids, a status and a duration.
  return trusted ? (line) => trusted("request", line as unknown as Record<string, unknown>) : (line) => logger.info("request", { ...line });
}
