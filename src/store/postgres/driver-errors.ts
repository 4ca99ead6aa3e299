import { StoreUnavailableError } from "../store-unavailable.js";

/**
 * A unit was refused by the database because its predicted seqs did not
 * match the stored log (the task was written by someone else, or an
 * earlier unit it builds on failed): nothing of the unit was stored.
 */
export class StoreFenceError extends Error {
  override readonly name = "StoreFenceError";
}

/** SQLSTATE the unit function raises when a fence fails (unit-statement.ts). */
const FENCE_SQLSTATE = "A2F01";

/**
 * SQLSTATE classes and codes that say the server is gone or going, not that
 * the statement was wrong: 08 connection exceptions, 57P01-57P03 (admin
 * shutdown, crash shutdown, cannot connect now), 53300 (too many connections).
 */
function unreachableCode(code: string): boolean {
  return code.startsWith("08") || code === "57P01" || code === "57P02" || code === "57P03" || code === "53300";
}

/** Node socket errors of a server that cannot be reached. */
const NETWORK_ERRORS = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN"]);

/** node-postgres's own messages for a connection lost or never had (they carry no code). */
const DRIVER_MESSAGES = ["timeout exceeded when trying to connect", "Connection terminated", "Client has encountered a connection error", "Client was closed", "Cannot use a pool after calling end"];

/**
 * SQLSTATEs of a transaction the server rolled back to break a conflict
 * with another (40P01 deadlock between two replicas' units on the shared
 * counter rows, 40001 serialization failure): nothing of it was stored, and
 * sent again it will most likely commit.
 */
export function conflictRolledBack(e: unknown): boolean {
  const code = (e as { code?: unknown } | undefined)?.code;
  return code === "40P01" || code === "40001";
}

/** Says what a driver error means for the caller: unavailable, a fence, or itself (a bug or a bad statement). */
export function storeError(e: unknown, what: string): Error {
  if (e instanceof StoreUnavailableError || e instanceof StoreFenceError) return e;
  const err = e instanceof Error ? e : new Error(String(e));
  const code = (err as { code?: unknown }).code;
  if (code === FENCE_SQLSTATE) return new StoreFenceError(err.message, { cause: err });
  if (typeof code === "string" && (unreachableCode(code) || NETWORK_ERRORS.has(code))) {
    return new StoreUnavailableError(`the task store's database is unavailable (${what}): ${err.message}`, { cause: err });
  }
  if (DRIVER_MESSAGES.some((m) => err.message.includes(m))) {
    return new StoreUnavailableError(`the task store's database is unavailable (${what}): ${err.message}`, { cause: err });
  }
  return err;
}
