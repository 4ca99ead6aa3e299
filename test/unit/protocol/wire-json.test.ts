import { describe, expect, it } from "vitest";
import { create, fromBinary, fromJson, toBinary, toJson, type DescMessage, type JsonValue, type MessageInitShape } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import { ListTasksResponseSchema, Role, SendMessageResponseSchema, TaskSchema, TaskState } from "../../../gen/a2a/v1/a2a_pb.js";
import { wireJson, writeProtoJson } from "../../../src/protocol/index.js";
import { seededRandom, type SeededRandom } from "../../helpers/seeded-random.js";

/**
 * wireJson (codec/json-from-binary.ts) writes ProtoJSON straight from protobuf
 * binary. Its promise: the same text, to the character, as decoding the
 * bytes and writing them with writeProtoJson (JSON-RPC, REST) or toJson
 * (Connect), and for bytes it does not take on, the decoding path's own
 * answer or error.
 */
function expected(schema: DescMessage, bytes: Uint8Array, required: boolean): string {
  const message = fromBinary(schema, bytes);
  return JSON.stringify(required ? writeProtoJson(schema, message) : toJson(schema, message));
}

function expectSame(schema: DescMessage, bytes: Uint8Array): void {
  for (const required of [true, false]) expect(wireJson(schema, bytes, { required })).toBe(expected(schema, bytes, required));
}

const WORDS = ["", "hello", "ünïcødé ✓", 'quote " and \\ backslash', "line\nbreak\u0001", "😀 astral", "7"];

function jsonValue(r: SeededRandom, depth: number): unknown {
  switch (r.int(0, depth > 2 ? 3 : 5)) {
    case 0:
      return null;
    case 1:
      return r.pick([0, -0.5, 1e21, 42, 3.14159, -7, 2 ** 53]);
    case 2:
      return r.pick(WORDS);
    case 3:
      return r.chance(0.5);
    case 4:
      return Array.from({ length: r.int(0, 3) }, () => jsonValue(r, depth + 1));
    default:
      return struct(r, depth + 1);
  }
}

function struct(r: SeededRandom, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  // Index-like keys and "__proto__" (rarely: the decoding path writes those) sort or set differently in a JS object.
  for (let i = r.int(0, 3); i > 0; i--) out[r.chance(0.03) ? r.pick(["10", "__proto__"]) : r.pick(["a", "b", "key with space", "ключ", "z"])] = jsonValue(r, depth);
  return out;
}

function part(r: SeededRandom): MessageInitShape<typeof TaskSchema>["history"] extends (infer M)[] | undefined ? M extends { parts?: (infer P)[] } ? P : never : never {
  const content = r.pick([
    () => ({ case: "text" as const, value: r.pick(WORDS) }),
    () => ({ case: "raw" as const, value: Uint8Array.from({ length: r.int(0, 7) }, () => r.int(0, 255)) }),
    () => ({ case: "url" as const, value: `https://example.com/${r.pick(WORDS)}` }),
    () => ({ case: "data" as const, value: fromJson(ValueSchema, jsonValue(r, 0) as JsonValue) }),
    () => undefined,
  ])();
  return {
    ...(content ? { content } : {}),
    ...(r.chance(0.3) ? { metadata: struct(r) as never } : {}),
    filename: r.chance(0.3) ? r.pick(WORDS) : "",
    mediaType: r.chance(0.3) ? "text/plain" : "",
  } as never;
}

function message(r: SeededRandom) {
  return {
    messageId: r.chance(0.9) ? `m-${r.int(0, 1e6)}` : "",
    contextId: r.chance(0.5) ? "ctx" : "",
    taskId: r.chance(0.5) ? "task" : "",
    role: r.pick([Role.USER, Role.AGENT, Role.UNSPECIFIED, 9 as Role]),
    parts: Array.from({ length: r.int(0, 3) }, () => part(r)),
    ...(r.chance(0.2) ? { metadata: struct(r) as never } : {}),
    extensions: r.chance(0.2) ? ["https://ext.example/a", r.pick(WORDS)] : [],
    referenceTaskIds: r.chance(0.2) ? ["t1", "t2"] : [],
  };
}

function task(r: SeededRandom): MessageInitShape<typeof TaskSchema> {
  const seconds = BigInt(r.pick([0, 1, 1_700_000_000, 253_402_300_799]));
  const nanos = r.pick([0, 1, 500_000_000, 123_456_000, 123_456_789, 999_999_999]);
  return {
    id: r.chance(0.9) ? `t-${r.int(0, 1e6)}` : "",
    contextId: r.chance(0.9) ? "c-1" : "",
    ...(r.chance(0.9)
      ? { status: { state: r.pick([TaskState.COMPLETED, TaskState.WORKING, TaskState.UNSPECIFIED, 99 as TaskState]), ...(r.chance(0.5) ? { message: message(r) } : {}), ...(r.chance(0.7) ? { timestamp: { seconds, nanos } } : {}) } }
      : {}),
    artifacts: Array.from({ length: r.int(0, 2) }, (_, i) => ({ artifactId: r.chance(0.9) ? `a-${i}` : "", name: r.chance(0.5) ? "answer" : "", description: "", parts: Array.from({ length: r.int(0, 3) }, () => part(r)), ...(r.chance(0.2) ? { metadata: struct(r) as never } : {}), extensions: [] })),
    history: Array.from({ length: r.int(0, 3) }, () => message(r)),
    ...(r.chance(0.3) ? { metadata: struct(r) as never } : {}),
  };
}

describe("wireJson: ProtoJSON straight from protobuf binary", () => {
  it("writes what decoding and writeProtoJson (or toJson) write, for 2,000 random tasks and SendMessage answers", () => {
    const r = seededRandom(16);
    for (let i = 0; i < 1000; i++) {
      const t = create(TaskSchema, task(r));
      expectSame(TaskSchema, toBinary(TaskSchema, t));
      const answer = r.chance(0.5) ? create(SendMessageResponseSchema, { payload: { case: "task", value: t } }) : create(SendMessageResponseSchema, { payload: { case: "message", value: message(r) as never } });
      expectSame(SendMessageResponseSchema, toBinary(SendMessageResponseSchema, answer));
    }
  });

  it("adds the always-written fields a message lacks, and leaves them out for Connect", () => {
    const bytes = toBinary(TaskSchema, create(TaskSchema, { history: [{ parts: [{ content: { case: "text", value: "" } }] }] }));
    const json = JSON.parse(wireJson(TaskSchema, bytes, { required: true })) as Record<string, unknown>;
    expect(json).toEqual({ history: [{ parts: [{ text: "" }], messageId: "", role: "ROLE_UNSPECIFIED" }], id: "", contextId: "", status: { state: "TASK_STATE_UNSPECIFIED" } });
    expect(JSON.parse(wireJson(TaskSchema, bytes, { required: false }))).toEqual({ history: [{ parts: [{ text: "" }] }] });
    expectSame(TaskSchema, new Uint8Array());
  });

  it("hands over to decoding what it does not take on: merged fields, int64s, groups, unknown fields, out-of-range timestamps, malformed bytes", () => {
    const t = toBinary(TaskSchema, create(TaskSchema, { id: "a", status: { state: TaskState.COMPLETED } }));
    // A singular field given twice: the last wins, and a message given twice is merged.
    const twice = Buffer.concat([t, toBinary(TaskSchema, create(TaskSchema, { id: "b", status: { timestamp: { seconds: 5n } } }))]);
    expectSame(TaskSchema, twice);
    // A oneof given two members: the last one wins.
    const parts = Buffer.concat([toBinary(SendMessageResponseSchema, create(SendMessageResponseSchema, { payload: { case: "task", value: { id: "x" } } })), toBinary(SendMessageResponseSchema, create(SendMessageResponseSchema, { payload: { case: "message", value: { messageId: "y" } } }))]);
    expectSame(SendMessageResponseSchema, parts);
    // Unknown fields of every wire type are skipped, as toJson leaves them out.
    expectSame(TaskSchema, Buffer.concat([t, Buffer.from([0x78, 0x01, 0x81, 0x01, 1, 2, 3, 4, 5, 6, 7, 8, 0x8a, 0x01, 0x02, 0x41, 0x42, 0x8d, 0x01, 1, 2, 3, 4])]));
    // An int64 (ListTasksResponse's sizes are int32; a Timestamp's seconds before 1970 are a 10-byte varint).
    expectSame(ListTasksResponseSchema, toBinary(ListTasksResponseSchema, create(ListTasksResponseSchema, { tasks: [{ id: "a" }], totalSize: 3, pageSize: 0, nextPageToken: "" })));
    expectSame(TaskSchema, toBinary(TaskSchema, create(TaskSchema, { status: { timestamp: { seconds: -5n, nanos: 1 } } })));
    // Values toJson refuses are refused with its own error.
    const far = toBinary(TaskSchema, create(TaskSchema, { status: { timestamp: { seconds: 253_402_300_800n } } }));
    expect(() => wireJson(TaskSchema, far, { required: true })).toThrow(/0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z/);
    const nan = toBinary(TaskSchema, create(TaskSchema, { metadata: { fields: { n: { kind: { case: "numberValue", value: NaN } } } } }));
    expect(() => wireJson(TaskSchema, nan, { required: false })).toThrow(/NaN or Infinity/);
    // Malformed bytes: fromBinary's error.
    for (const bad of [Buffer.from([0x0a, 0x05, 0x61]), Buffer.from([0x1a, 0x02, 0x08]), Buffer.from([0x0b]), Buffer.from([0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01])]) {
      let want: unknown;
      try {
        want = expected(TaskSchema, bad, true);
      } catch (e) {
        want = e;
      }
      if (want instanceof Error) expect(() => wireJson(TaskSchema, bad, { required: true })).toThrow(want.message);
      else expect(wireJson(TaskSchema, bad, { required: true })).toBe(want);
    }
  });
});
