import { PassThrough } from "node:stream";
import { createHubLogger, type LevelledLogger } from "../../src/telemetry/index.js";

/** A pino hub logger writing JSON lines into memory, and the lines it wrote. */
export function memoryLogger(level: string): { logger: LevelledLogger; lines(): Array<Record<string, unknown>> } {
  const out = new PassThrough();
  const chunks: string[] = [];
  out.on("data", (c: Buffer) => chunks.push(c.toString("utf8")));
  return {
    logger: createHubLogger({ level, destination: out, pretty: false }),
    lines: () =>
      chunks
        .join("")
        .split("\n")
        .filter((l) => l.trim() !== "")
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}
