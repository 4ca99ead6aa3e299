import { create, ScalarType, toBinary, type DescField, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { ProtoWriter, WIRE } from "../../codec/index.js";

/**
 * protobuf binary of a message, the same to the byte as toBinary, written
 * into one buffer kept from call to call. Why: toBinary grows a fresh
 * writer from 128 bytes for every message (128, 256, 512…) and returns a
 * copy; every one of those is a typed array over 64 bytes, which V8 backs
 * with memory of its own, allocated by malloc and freed by the collector's
 * array-buffer sweep, and the store encodes every event it logs
 * (docs/hot-path-objects.md; what this saves: docs/performance-notes.md).
 * An encode costs one copy out of the kept
 * buffer, into node's Buffer pool.
 *
 * The fields the store's events carry are written here; any other (a
 * map, packed scalars, a 64-bit kind other than int64, floats, and the
 * well-known types protobuf-es holds as JSON: Struct, Value, ListValue)
 * is written by toBinary, alone, at its place in field order, so the
 * bytes stay exactly toBinary's (test/unit/store/encoding/message-encoder.test.ts holds the
 * two to that).
 */
export function encodeMessage<Desc extends DescMessage>(schema: Desc, message: MessageShape<Desc>): Buffer {
  // Never re-entered (encoding calls nothing that encodes); a guard keeps it true if that changes.
  if (scratch.busy) return Buffer.from(toBinary(schema, message));
  scratch.busy = true;
  try {
    scratch.pos = 0;
    writeMessage(scratch, schema, message as Fields);
    return scratch.copyOut();
  } finally {
    scratch.busy = false;
  }
}

type Fields = Record<string, unknown> & { $unknown?: Array<{ no: number; wireType: number; data: Uint8Array }> };

const { VARINT } = WIRE;
/** google.protobuf.FeatureSet.FieldPresence.IMPLICIT (proto3 scalars: written unless zero). */
const IMPLICIT = 2;
/** Messages protobuf-es holds in a local form (JsonObject, JsonValue, a wrapper's primitive): toBinary maps them back. */
const LOCAL_FORMS = new Set(["google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue"]);

/** The shared protobuf writer, kept from encode to encode. */
class ScratchWriter extends ProtoWriter {
  busy = false;
}

const scratch = new ScratchWriter(16 * 1024);

/** Fields in number order, as toBinary writes them; computed once per message type. */
const ordered = new WeakMap<DescMessage, readonly DescField[]>();

function fieldsOf(schema: DescMessage): readonly DescField[] {
  let fields = ordered.get(schema);
  if (!fields) ordered.set(schema, (fields = [...schema.fields].sort((a, b) => a.number - b.number)));
  return fields;
}

function writeMessage(w: ScratchWriter, schema: DescMessage, message: Fields): void {
  for (const field of fieldsOf(schema)) writeField(w, schema, message, field);
  if (!message.$unknown) return;
  for (const u of message.$unknown) {
    w.tag(u.no, u.wireType);
    w.raw(u.data);
  }
}

function writeField(w: ScratchWriter, schema: DescMessage, message: Fields, field: DescField): void {
  const name = field.localName;
  switch (field.fieldKind) {
    case "list": {
      const items = message[name] as unknown[];
      if (items.length === 0) return;
      if (field.listKind === "message" && !LOCAL_FORMS.has(field.message.typeName) && !field.delimitedEncoding) {
        for (const item of items) child(w, field.number, field.message, item as Fields);
        return;
      }
      if (field.listKind === "scalar" && field.scalar === ScalarType.STRING) {
        for (const item of items) w.utf8(field.number, item as string);
        return;
      }
      return byToBinary(w, schema, name, message[name]);
    }
    case "map":
      if (Object.keys(message[name] as object).length > 0) byToBinary(w, schema, name, message[name]);
      return;
    default: {
      let value: unknown;
      if (field.oneof) {
        const oneof = message[field.oneof.localName] as { case: string | undefined; value?: unknown };
        if (oneof.case !== name) return;
        value = oneof.value;
      } else {
        value = message[name];
        if (field.presence !== IMPLICIT) {
          if (value === undefined || !Object.prototype.hasOwnProperty.call(message, name)) return;
        } else if (isZero(field, value)) return;
      }
      if (field.fieldKind === "message") {
        if (LOCAL_FORMS.has(field.message.typeName) || field.delimitedEncoding) return byToBinary(w, schema, name, value, field.oneof?.localName);
        return child(w, field.number, field.message, value as Fields);
      }
      if (!writeScalar(w, field, value)) byToBinary(w, schema, name, value, field.oneof?.localName);
    }
  }
}

function child(w: ScratchWriter, no: number, schema: DescMessage, value: Fields): void {
  const at = w.open(no);
  writeMessage(w, schema, value);
  w.close(at);
}

/** The zero value of an implicit-presence field, which toBinary leaves out. */
function isZero(field: DescField, value: unknown): boolean {
  if (field.fieldKind === "enum") return value === field.enum.values[0]!.number;
  switch (field.scalar) {
    case ScalarType.BOOL:
      return value === false;
    case ScalarType.STRING:
      return value === "";
    case ScalarType.BYTES:
      return value instanceof Uint8Array && value.byteLength === 0;
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return Object.is(value, 0);
    default:
      // Loose, as toBinary's: 0, 0n and "0".
      return value == 0;
  }
}

/** Writes the kinds the store's events carry; false for any other, which toBinary then writes. */
function writeScalar(w: ScratchWriter, field: DescField, value: unknown): boolean {
  const kind = field.fieldKind === "enum" ? ScalarType.INT32 : field.scalar;
  const no = field.number;
  switch (kind) {
    case ScalarType.STRING:
      w.utf8(no, value as string);
      return true;
    case ScalarType.BYTES:
      w.bytes(no, value as Uint8Array);
      return true;
    case ScalarType.BOOL:
      w.tag(no, VARINT);
      w.varint(value ? 1 : 0);
      return true;
    case ScalarType.INT32:
      w.tag(no, VARINT);
      w.varint(value as number);
      return true;
    case ScalarType.UINT32:
      w.tag(no, VARINT);
      w.varint((value as number) >>> 0);
      return true;
    case ScalarType.INT64: {
      const n = typeof value === "bigint" ? value : BigInt(value as string | number);
      w.tag(no, VARINT);
      if (n >= 0n && n <= 0xffffffffn) w.varint(Number(n));
      else w.varint64(n);
      return true;
    }
    default:
      return false;
  }
}

/** One field written by toBinary: a message of the same type holding that field alone encodes to exactly its bytes. */
function byToBinary(w: ScratchWriter, schema: DescMessage, name: string, value: unknown, oneof?: string): void {
  const holder = create(schema) as unknown as Record<string, unknown>;
  holder[oneof ?? name] = oneof ? { case: name, value } : value;
  w.raw(toBinary(schema, holder as never));
}

