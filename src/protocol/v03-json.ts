/** JSON helpers the v0.3 dialect modules share (not exported beyond them). */
import { toJson } from "@bufbuild/protobuf";
import { TimestampSchema, type Timestamp } from "@bufbuild/protobuf/wkt";

export function timestampJson(ts: Timestamp): string {
  return toJson(TimestampSchema, ts) as string;
}

export function nonEmpty<T>(list: readonly T[]): T[] | undefined {
  return list.length > 0 ? [...list] : undefined;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Drops undefined members, which are not JSON and which fromJson refuses. */
export function compact<T extends object>(o: T): T {
  const out = {} as T;
  for (const [k, v] of Object.entries(o)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}
