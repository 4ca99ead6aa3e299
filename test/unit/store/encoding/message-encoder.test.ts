import { create, fromBinary, fromJson, toBinary, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import {
  ArtifactSchema,
  MessageSchema,
  PartSchema,
  StreamResponseSchema,
  TaskSchema,
  TaskStatusSchema,
  type Artifact,
  type Message,
  type Part,
  type StreamResponse,
  type TaskStatus,
} from "../../../../gen/a2a/v1/a2a_pb.js";
import { encodeMessage } from "../../../../src/store/encoding/message-encoder.js";
import { seededRandom } from "../../../helpers/seeded-random.js";

/**
 * The store's encoder must give toBinary's bytes exactly, whatever the
 * message: rows written by one are read next to rows written by the other,
 * and tests compare stored bytes. Random A2A events, from a fixed seed,
 * over every field kind the events carry.
 */

/** Choices from a fixed seed: `int(n)` in [0, n). */
function prng(seed: number) {
  const r = seededRandom(seed);
  return { int: (n: number): number => r.int(0, n - 1), chance: r.chance };
}

type Rand = ReturnType<typeof prng>;

const ALPHABET = ["a", "Z", "0", " ", "é", "ß", "日本", "🙂", "\u0000", "\n"];

function text(r: Rand, max = 40): string {
  // Now and then long enough for a length of two or three varint bytes, or for the scratch buffer to grow.
  const n = r.chance(0.05) ? 200 + r.int(40_000) : r.int(max);
  let s = "";
  for (let i = 0; i < n; i++) s += ALPHABET[r.int(ALPHABET.length)];
  return s;
}

function json(r: Rand, depth: number): JsonValue {
  switch (r.int(depth > 2 ? 4 : 6)) {
    case 0:
      return null;
    case 1:
      return r.int(1000) - 500 + r.int(100) / 7;
    case 2:
      return text(r, 8);
    case 3:
      return r.chance(0.5);
    case 4:
      return Array.from({ length: r.int(3) }, () => json(r, depth + 1));
    default:
      return object(r, depth + 1);
  }
}

function object(r: Rand, depth = 0): JsonObject {
  const o: JsonObject = {};
  for (let i = r.int(3); i > 0; i--) o[text(r, 6)] = json(r, depth);
  return o;
}

function part(r: Rand): Part {
  const content = [
    () => ({ case: "text" as const, value: text(r) }),
    () => ({ case: "raw" as const, value: new Uint8Array(Array.from({ length: r.int(300) }, () => r.int(256))) }),
    () => ({ case: "url" as const, value: `https://example.com/${text(r, 10)}` }),
    () => ({ case: "data" as const, value: fromJson(ValueSchema, json(r, 0)) }),
    () => ({ case: undefined }),
  ][r.int(5)]!();
  return create(PartSchema, {
    content: content as Part["content"],
    filename: r.chance(0.3) ? text(r, 12) : "",
    mediaType: r.chance(0.3) ? "text/plain" : "",
    metadata: r.chance(0.2) ? object(r) : undefined,
  });
}

function message(r: Rand): Message {
  return create(MessageSchema, {
    messageId: text(r, 36),
    contextId: r.chance(0.7) ? text(r, 36) : "",
    taskId: r.chance(0.7) ? text(r, 36) : "",
    role: r.int(4),
    parts: Array.from({ length: r.int(4) }, () => part(r)),
    metadata: r.chance(0.2) ? object(r) : undefined,
    extensions: Array.from({ length: r.int(3) }, () => text(r, 20)),
    referenceTaskIds: Array.from({ length: r.int(2) }, () => text(r, 36)),
  });
}

function status(r: Rand): TaskStatus {
  const s = create(TaskStatusSchema, { state: r.chance(0.1) ? 99 : r.int(10), message: r.chance(0.3) ? message(r) : undefined });
  if (r.chance(0.8)) {
    // Seconds across int64, negative ones and past 2^32 included; nanos up to a second.
    const seconds = [0n, 1n, 1_700_000_000n, -62_135_596_800n, 253_402_300_799n, BigInt(r.int(2 ** 31))][r.int(6)]!;
    s.timestamp = { $typeName: "google.protobuf.Timestamp", seconds, nanos: r.int(1_000_000_000) };
  }
  return s;
}

function artifact(r: Rand): Artifact {
  return create(ArtifactSchema, {
    artifactId: text(r, 36),
    name: r.chance(0.5) ? text(r, 20) : "",
    description: r.chance(0.3) ? text(r) : "",
    parts: Array.from({ length: r.int(4) }, () => part(r)),
    metadata: r.chance(0.2) ? object(r) : undefined,
    extensions: Array.from({ length: r.int(2) }, () => text(r, 20)),
  });
}

function event(r: Rand): StreamResponse {
  const ids = { taskId: text(r, 36), contextId: text(r, 36) };
  const metadata = r.chance(0.2) ? object(r) : undefined;
  switch (r.int(5)) {
    case 0:
      return create(StreamResponseSchema, {
        payload: {
          case: "task",
          value: create(TaskSchema, {
            id: ids.taskId,
            contextId: ids.contextId,
            status: status(r),
            artifacts: Array.from({ length: r.int(3) }, () => artifact(r)),
            history: Array.from({ length: r.int(4) }, () => message(r)),
            metadata,
          }),
        },
      });
    case 1:
      return create(StreamResponseSchema, { payload: { case: "message", value: message(r) } });
    case 2:
      return create(StreamResponseSchema, { payload: { case: "statusUpdate", value: { ...ids, status: status(r), metadata } } });
    case 3:
      return create(StreamResponseSchema, { payload: { case: "artifactUpdate", value: { ...ids, artifact: artifact(r), append: r.chance(0.5), lastChunk: r.chance(0.5), metadata } } });
    default:
      return create(StreamResponseSchema);
  }
}

describe("the store's message encoder", () => {
  it("gives toBinary's bytes for 3,000 random events of every kind", () => {
    const r = prng(20261127);
    for (let i = 0; i < 3_000; i++) {
      const e = event(r);
      const expected = Buffer.from(toBinary(StreamResponseSchema, e));
      const got = encodeMessage(StreamResponseSchema, e);
      if (!got.equals(expected)) expect.fail(`event ${i} encodes differently: ${got.toString("hex")} vs ${expected.toString("hex")}`);
    }
  });

  it("keeps unknown fields where toBinary puts them, after the known ones", () => {
    const r = prng(7);
    const m = message(r);
    // Field 99 (LEN) and field 98 (varint): unknown to Message; decoding keeps them in $unknown.
    const bytes = Buffer.concat([Buffer.from(toBinary(MessageSchema, m)), Buffer.from([0x9a, 0x06, 0x03, 0x61, 0x62, 0x63, 0x90, 0x06, 0x2a])]);
    const decoded = fromBinary(MessageSchema, bytes);
    expect(decoded.$unknown?.length).toBe(2);
    expect(encodeMessage(MessageSchema, decoded).equals(Buffer.from(toBinary(MessageSchema, decoded)))).toBe(true);
  });

  it("encodes a message past the kept buffer's 1 MiB, and the small ones after it, as toBinary does", () => {
    const big = create(MessageSchema, { messageId: "big", parts: [{ content: { case: "text", value: "é".repeat(1_500_000) } }] });
    const small = create(MessageSchema, { messageId: "small", parts: [{ content: { case: "text", value: "hi" } }] });
    for (const m of [big, small, big, small]) expect(encodeMessage(MessageSchema, m).equals(Buffer.from(toBinary(MessageSchema, m)))).toBe(true);
  });

  it("answers each call with bytes of its own, not a view that the next encode overwrites", () => {
    const r = prng(11);
    const a = event(r);
    const b = event(r);
    const first = encodeMessage(StreamResponseSchema, a);
    const copy = Buffer.from(first);
    encodeMessage(StreamResponseSchema, b);
    expect(first.equals(copy)).toBe(true);
  });
});
