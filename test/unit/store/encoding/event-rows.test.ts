import { create, equals, fromBinary, fromJson, toBinary } from "@bufbuild/protobuf";
import { timestampFromMs, UninterpretedOption_NamePartSchema, UninterpretedOptionSchema, ValueSchema } from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import {
  ArtifactSchema,
  MessageSchema,
  PartSchema,
  Role,
  StreamResponseSchema,
  TaskSchema,
  TaskState,
  TaskStatusSchema,
  type Artifact,
  type Message,
  type Task,
} from "../../../../gen/a2a/v1/a2a_pb.js";
import { artifactRows, creationRows, statusRows } from "../../../../src/store/encoding/index.js";
import { fieldValue, fieldValues, withoutField } from "../../../../src/store/encoding/wire-scan.js";

/*
 * The rows the store writes beside an event are sliced from the event's
 * own bytes (event-rows.ts, wire-scan.ts). Whatever the slicing, each row
 * must be byte for byte what encoding its message alone gives: fields of
 * every wire type around the sliced ones (varint enums and timestamps,
 * fixed64 doubles in metadata, bytes), and lengths of one, two and three
 * varint bytes.
 */

/** Bytes compared as bytes: the store's encoder gives Buffers, toBinary Uint8Arrays. */
const hex = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");

const metadata = { n: 1.5, big: 1e300, list: [1, "two", true, null], nested: { deep: { x: -0.25 } } };

function message(i: number, text: string): Message {
  return create(MessageSchema, {
    messageId: `m-${i}`,
    contextId: "ctx",
    taskId: "task-1",
    role: i % 2 === 0 ? Role.USER : Role.AGENT,
    parts: [
      { content: { case: "text", value: text } },
      { content: { case: "raw", value: new Uint8Array([0, 1, 2, 255]) }, mediaType: "application/octet-stream", filename: "b.bin" },
      { content: { case: "data", value: fromJson(ValueSchema, { a: i, b: [true, 2.5] }) }, metadata: { k: "v" } },
    ],
    metadata: { ...metadata, i },
    extensions: ["https://example.com/ext"],
  });
}

const texts = ["", "short", "x".repeat(200), "y".repeat(20_000)];

function artifact(id: string, text: string): Artifact {
  return create(ArtifactSchema, {
    artifactId: id,
    name: "result",
    description: "d".repeat(130),
    parts: texts.map((t) => create(PartSchema, { content: { case: "text", value: t + text }, metadata })),
    metadata,
    extensions: ["e1", "e2"],
  });
}

describe("event rows sliced from the event's bytes", () => {
  it("a new task's status and history rows are the encodings of its status and messages", () => {
    const history = texts.map((t, i) => message(i, t));
    const status = create(TaskStatusSchema, { state: TaskState.WORKING, timestamp: timestampFromMs(1_700_000_000_123), message: message(9, "status ✓") });
    const task = create(TaskSchema, { id: "task-1", contextId: "ctx", status, history, artifacts: [artifact("a", "!")], metadata });
    const rows = creationRows(create(StreamResponseSchema, { payload: { case: "task", value: task } }), status, history);
    expect(equals(TaskSchema, fromBinary(StreamResponseSchema, rows.event).payload.value as Task, task)).toBe(true);
    expect(hex(rows.status)).toEqual(hex(toBinary(TaskStatusSchema, status)));
    expect(rows.history.map(hex)).toEqual(history.map((m) => hex(toBinary(MessageSchema, m))));
  });

  it("a status update's status and message rows, with and without a message", () => {
    for (const withMessage of [true, false]) {
      const status = create(TaskStatusSchema, { state: TaskState.INPUT_REQUIRED, timestamp: timestampFromMs(1), ...(withMessage ? { message: message(3, "z".repeat(300)) } : {}) });
      const event = create(StreamResponseSchema, { payload: { case: "statusUpdate", value: { taskId: "task-1", contextId: "ctx", status, metadata } } });
      const rows = statusRows(event, status);
      expect(hex(rows.event)).toEqual(hex(toBinary(StreamResponseSchema, event)));
      expect(hex(rows.status)).toEqual(hex(toBinary(TaskStatusSchema, status)));
      expect(rows.message && hex(rows.message)).toEqual(withMessage ? hex(toBinary(MessageSchema, status.message!)) : undefined);
    }
  });

  it("an artifact update's head (the artifact without its parts) and part rows", () => {
    for (const text of texts) {
      const a = artifact(`art-${text.length}`, text);
      const event = create(StreamResponseSchema, { payload: { case: "artifactUpdate", value: { taskId: "task-1", contextId: "ctx", artifact: a, append: true, lastChunk: false, metadata } } });
      const rows = artifactRows(event, a);
      expect(hex(rows.event)).toEqual(hex(toBinary(StreamResponseSchema, event)));
      expect(rows.parts.map(hex)).toEqual(a.parts.map((p) => hex(toBinary(PartSchema, p))));
      expect(fromBinary(ArtifactSchema, rows.head)).toEqual(create(ArtifactSchema, { ...a, parts: [] }));
    }
  });
});

describe("wire scan", () => {
  it("steps over varint, fixed64 and length-delimited fields of every size to the ones asked for", () => {
    // descriptor.proto's UninterpretedOption mixes wire types at one level: repeated NamePart (2), uint64 (4), int64 (5), double (6), bytes (7), string (8).
    for (const size of [0, 1, 127, 128, 16_383, 16_384, 70_000]) {
      const name = [create(UninterpretedOption_NamePartSchema, { namePart: "a".repeat(size), isExtension: true }), create(UninterpretedOption_NamePartSchema, { namePart: "b", isExtension: false })];
      const option = create(UninterpretedOptionSchema, { name, identifierValue: "id", positiveIntValue: 2n ** 63n, negativeIntValue: -1n, doubleValue: Math.PI, stringValue: new Uint8Array(size).fill(7), aggregateValue: "agg" });
      const bytes = toBinary(UninterpretedOptionSchema, option);
      expect(fieldValues(bytes, 2)).toEqual(name.map((n) => toBinary(UninterpretedOption_NamePartSchema, n)));
      expect(fieldValue(bytes, 7)).toEqual(new Uint8Array(size).fill(7));
      expect(new TextDecoder().decode(fieldValue(bytes, 8))).toBe("agg");
      expect(fieldValue(bytes, 9)).toBeUndefined();
      expect(fromBinary(UninterpretedOptionSchema, withoutField(bytes, 2))).toEqual(create(UninterpretedOptionSchema, { ...option, name: [] }));
    }
  });

  it("throws on a message cut short rather than reading past it", () => {
    const bytes = toBinary(UninterpretedOptionSchema, create(UninterpretedOptionSchema, { doubleValue: 1, stringValue: new Uint8Array(10) }));
    for (let cut = 1; cut < bytes.length; cut++) {
      if (cut === 9) continue; // a whole double: a message of its own
      expect(() => fieldValues(bytes.subarray(0, cut), 7), `cut at ${cut}`).toThrow(/wire scan/);
    }
  });
});
