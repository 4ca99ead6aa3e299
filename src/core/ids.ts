import { randomUUID } from "node:crypto";

/**
 * A new task or context id (§3.1.1: the server assigns them). UUIDv7 (RFC
 * 9562 §5.7) rather than v4: ids made one after another share their
 * leading, time-ordered bytes, so the store's indexes on them grow at their
 * right edge instead of touching a random page per task (fewer WAL pages
 * per commit: docs/performance-notes.md), and ids sort in creation order.
 * The time they reveal is the task's own, which GetTask shows anyway.
 *
 * Made from node's randomUUID, whose random bytes come from a cached pool,
 * where the `uuid` package's v7 asks WebCrypto for 16 bytes per id.
 * The v4's version digit (index 14) gives way to the 48-bit millisecond
 * timestamp and the version 7; its variant bits and 74 random bits stay.
 */
export function newTaskId(): string {
  const now = Date.now();
  // Under load many ids fall in the same millisecond: its text is made once.
  if (now !== lastMs) {
    lastMs = now;
    const ms = now.toString(16).padStart(12, "0");
    msPrefix = `${ms.slice(0, 8)}-${ms.slice(8)}-7`;
  }
  return msPrefix + randomUUID().slice(15);
}

/** The millisecond of the last id, and the text its ids begin with. */
let lastMs = -1;
let msPrefix = "";

/** A new context id, made like a task id (see newTaskId). */
export function newContextId(): string {
  return newTaskId();
}
