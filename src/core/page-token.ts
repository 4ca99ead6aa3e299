import { createHash } from "node:crypto";
import type { ListCursor } from "../store/index.js";
import { invalidParams } from "../protocol/index.js";

/**
 * §3.1.4 cursor pagination: a token names the last task of a page by its
 * (status time, update counter) keyset position, so pages stay correct when
 * many tasks share one timestamp. The token also carries a fingerprint of
 * the query and caller, so a token from another query or tenant is refused
 * rather than silently paging through something else.
 */
export function encodePageToken(cursor: ListCursor, fingerprint: string): string {
  return Buffer.from(`v1:${cursor.statusMs}:${cursor.touch}:${fingerprint}`).toString("base64url");
}

/** Reads a token; InvalidParams naming pageToken when it is not ours or not for this query. */
export function decodePageToken(token: string, fingerprint: string): ListCursor {
  const bad = () => invalidParams("pageToken", "is not a page token issued for this query");
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(token)) throw bad();
  const parts = Buffer.from(token, "base64url").toString("utf8").split(":");
  if (parts.length !== 4 || parts[0] !== "v1" || parts[3] !== fingerprint) throw bad();
  const statusMs = Number(parts[1]);
  const touch = Number(parts[2]);
  if (!Number.isSafeInteger(statusMs) || !Number.isSafeInteger(touch)) throw bad();
  return { statusMs, touch };
}

/** A short digest of everything that shapes a listing's order and filter. */
export function queryFingerprint(...parts: ReadonlyArray<string | number | undefined>): string {
  return createHash("sha256").update(JSON.stringify(parts)).digest("base64url").slice(0, 12);
}
