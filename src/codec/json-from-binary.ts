import { fromBinary, ScalarType, toJson, type DescEnum, type DescField, type DescMessage } from "@bufbuild/protobuf";
import type { AlwaysEmitted } from "./always-emitted.js";
import { MalformedProto, ProtoReader } from "./proto-reader.js";

/**
 * ProtoJSON text of a message given in protobuf binary, the same to the
 * character as `JSON.stringify(emitted.toJson(schema, fromBinary(schema,
 * bytes)))` (or of toJson, without `emitted`), read straight off the wire:
 * no message object, no JSON object tree, one string. Why: decoding bytes
 * into a message, walking it into a JSON object and that into text costs
 * three walks and the objects they leave for the collector, about twice
 * this one walk (measured: docs/performance-notes.md).
 *
 * Fields come out in number order, as toJson writes them; the always-
 * emitted fields a message lacks come after, as AlwaysEmitted.fill adds
 * them. Whatever this reader does not take on (a map, an int64, a group, a
 * singular field or oneof given twice, which protobuf merges, a value
 * toJson refuses) sends the whole message down the decoding path, which
 * answers it, or refuses it, as before.
 */
export function jsonFromBinary(schema: DescMessage, bytes: Uint8Array, emitted: AlwaysEmitted | undefined): string {
  try {
    const r = new ProtoReader(bytes);
    return messageJson(r, schema, bytes.length, emitted);
  } catch (e) {
    // Malformed bytes too: fromBinary refuses them with its own error, as before.
    if (e !== DECODE_INSTEAD && !(e instanceof MalformedProto)) throw e;
    const message = fromBinary(schema, bytes);
    return JSON.stringify(emitted ? emitted.toJson(schema, message) : toJson(schema, message));
  }
}

/** Thrown where the reader leaves the message to fromBinary and toJson. */
const DECODE_INSTEAD = new Error("decode instead");

const IMPLICIT_PRESENCE = 2;
const TIMESTAMP = "google.protobuf.Timestamp";
const STRUCT = "google.protobuf.Struct";
const VALUE = "google.protobuf.Value";
const LIST_VALUE = "google.protobuf.ListValue";
/** protobuf-es's bounds of a Timestamp in JSON (RFC 3339 years 1 to 9999). */
const TIMESTAMP_MS_MIN = Date.parse("0001-01-01T00:00:00Z");
const TIMESTAMP_MS_MAX = Date.parse("9999-12-31T23:59:59Z");

/** One field of a message as this reader writes it. */
interface Slot {
  readonly field: DescField;
  /** Position among the fields in number order. */
  readonly index: number;
  /** `"jsonName":` */
  readonly key: string;
  readonly repeated: boolean;
  /** Written even at its zero value once on the wire (a oneof member, a message, `optional`). */
  readonly explicit: boolean;
  /** Its oneof's position in the message, or -1. */
  readonly oneof: number;
  /** An enum's names by number. */
  readonly names: ReadonlyMap<number, string> | undefined;
}

interface Plan {
  readonly slots: readonly Slot[];
  readonly byNumber: ReadonlyMap<number, Slot>;
  /** The always-emitted fields of `emittedBy`, in declaration order, with their zero value's text: worked out on first use. */
  required: readonly { readonly slot: Slot; readonly zero: string }[];
  emittedBy: AlwaysEmitted | undefined;
  readonly oneofs: number;
}

const plans = new Map<DescMessage, Plan>();

function planOf(desc: DescMessage): Plan {
  let plan = plans.get(desc);
  if (plan) return plan;
  const sorted = desc.fields.concat().sort((a, b) => a.number - b.number);
  const slots = sorted.map((field, index): Slot => {
    const enumDesc: DescEnum | undefined = field.fieldKind === "enum" || (field.fieldKind === "list" && field.listKind === "enum") ? field.enum : undefined;
    return {
      field,
      index,
      key: `${JSON.stringify(field.jsonName)}:`,
      repeated: field.fieldKind === "list",
      explicit: field.fieldKind !== "list" && (field.presence !== IMPLICIT_PRESENCE || field.oneof !== undefined),
      oneof: field.oneof ? desc.oneofs.indexOf(field.oneof) : -1,
      names: enumDesc && new Map(enumDesc.values.map((v) => [v.number, v.name])),
    };
  });
  const byNumber = new Map(slots.map((s) => [s.field.number, s]));
  plan = { slots, byNumber, required: [], emittedBy: undefined, oneofs: desc.oneofs.length };
  plans.set(desc, plan);
  return plan;
}

/** One message, from the reader's position to `end`. */
function messageJson(r: ProtoReader, desc: DescMessage, end: number, emitted: AlwaysEmitted | undefined): string {
  switch (desc.typeName) {
    case TIMESTAMP:
      return timestampJson(r, end);
    case STRUCT:
      return structJson(r, end);
    case VALUE:
      return valueJson(r, end);
    case LIST_VALUE:
      return listValueJson(r, end);
  }
  if (desc.typeName.startsWith("google.protobuf.")) throw DECODE_INSTEAD;
  const plan = planOf(desc);
  const values: (string | string[] | undefined)[] = new Array(plan.slots.length);
  const oneofs: (Slot | undefined)[] | undefined = plan.oneofs > 0 ? new Array(plan.oneofs) : undefined;
  while (r.pos < end) {
    const tag = r.varint32();
    const slot = plan.byNumber.get(tag >>> 3);
    const wireType = tag & 7;
    if (!slot) {
      r.skip(wireType);
      continue;
    }
    const text = fieldJson(r, slot, wireType, emitted);
    if (slot.repeated) {
      const list = values[slot.index];
      if (list === undefined) values[slot.index] = [text!];
      else (list as string[]).push(text!);
      continue;
    }
    // protobuf keeps the last of a singular field given twice (merging messages): decode instead.
    if (values[slot.index] !== undefined) throw DECODE_INSTEAD;
    if (slot.oneof >= 0) {
      if (oneofs![slot.oneof] !== undefined) throw DECODE_INSTEAD;
      oneofs![slot.oneof] = slot;
    }
    if (text !== undefined) values[slot.index] = text;
  }
  r.at(end);
  let out = "";
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === undefined) continue;
    out += `${out === "" ? "" : ","}${plan.slots[i]!.key}${typeof v === "string" ? v : `[${v.join(",")}]`}`;
  }
  if (emitted) {
    if (plan.emittedBy !== emitted) {
      plan.required = emitted.fieldsOf(desc).map((f) => ({ slot: plan.byNumber.get(f.number)!, zero: emitted.zeroText(f) }));
      plan.emittedBy = emitted;
    }
    for (const { slot, zero } of plan.required) {
      if (values[slot.index] === undefined) out += `${out === "" ? "" : ","}${slot.key}${zero}`;
    }
  }
  return `{${out}}`;
}

/** One value of a field; undefined for an implicit-presence scalar at its zero value (toJson leaves it out). */
function fieldJson(r: ProtoReader, slot: Slot, wireType: number, emitted: AlwaysEmitted | undefined): string | undefined {
  const f = slot.field;
  const kind = f.fieldKind === "list" ? f.listKind : f.fieldKind;
  if (kind === "message") {
    if (wireType !== 2) throw DECODE_INSTEAD;
    return messageJson(r, (f as { message: DescMessage }).message, r.sub(r.end), emitted);
  }
  if (kind === "enum") {
    if (wireType !== 0) throw DECODE_INSTEAD;
    const n = r.varint32() | 0;
    if (n === 0 && !slot.explicit && !slot.repeated) return undefined;
    const name = slot.names!.get(n);
    return name === undefined ? String(n) : `"${name}"`;
  }
  if (kind !== "scalar") throw DECODE_INSTEAD;
  const text = scalarJson(r, (f as { scalar: ScalarType }).scalar, wireType);
  return text === undefined || (!slot.explicit && !slot.repeated && isZero(text)) ? undefined : text;
}

/** The text of a scalar's zero value in JSON. */
function isZero(text: string): boolean {
  return text === '""' || text === "0" || text === "false";
}

function scalarJson(r: ProtoReader, type: ScalarType, wireType: number): string | undefined {
  switch (type) {
    case ScalarType.STRING:
      if (wireType !== 2) break;
      return JSON.stringify(r.string());
    case ScalarType.BYTES:
      if (wireType !== 2) break;
      return `"${r.bytesBase64()}"`;
    case ScalarType.BOOL:
      if (wireType !== 0) break;
      return r.varint32() !== 0 ? "true" : "false";
    case ScalarType.INT32:
      if (wireType !== 0) break;
      return String(r.varint32() | 0);
    case ScalarType.UINT32:
      if (wireType !== 0) break;
      return String(r.varint32() >>> 0);
    case ScalarType.SINT32: {
      if (wireType !== 0) break;
      const n = r.varint32() >>> 0;
      return String((n >>> 1) ^ -(n & 1));
    }
    case ScalarType.FIXED32:
      if (wireType !== 5) break;
      return String(r.fixed32());
    case ScalarType.SFIXED32:
      if (wireType !== 5) break;
      return String(r.fixed32() | 0);
    case ScalarType.DOUBLE:
      if (wireType !== 1) break;
      return floatJson(r.double());
    case ScalarType.FLOAT:
      if (wireType !== 5) break;
      return floatJson(r.float());
  }
  // int64s (strings in JSON), packed lists, a wire type the field does not have.
  throw DECODE_INSTEAD;
}

/** toJson's doubles and floats: NaN and the infinities as strings. */
function floatJson(n: number): string {
  if (Number.isNaN(n)) return '"NaN"';
  if (n === Infinity) return '"Infinity"';
  if (n === -Infinity) return '"-Infinity"';
  return JSON.stringify(n);
}

/** google.protobuf.Timestamp as RFC 3339, as protobuf-es writes it (0, 3, 6 or 9 fractional digits). */
function timestampJson(r: ProtoReader, end: number): string {
  let seconds = 0;
  let nanos = 0;
  while (r.pos < end) {
    const tag = r.varint32();
    if (tag === (1 << 3)) seconds = r.varintSafe();
    else if (tag === (2 << 3)) nanos = r.varint32() | 0;
    else skipUnknown(r, tag, 2);
  }
  r.at(end);
  const ms = seconds * 1000;
  if (ms < TIMESTAMP_MS_MIN || ms > TIMESTAMP_MS_MAX || nanos < 0 || nanos > 999_999_999) throw DECODE_INSTEAD;
  let z = "Z";
  if (nanos > 0) {
    const digits = String(nanos + 1_000_000_000).slice(1);
    z = digits.endsWith("000000") ? `.${digits.slice(0, 3)}Z` : digits.endsWith("000") ? `.${digits.slice(0, 6)}Z` : `.${digits}Z`;
  }
  if (seconds !== lastSeconds) {
    lastSeconds = seconds;
    lastIso = new Date(ms).toISOString().slice(0, -5);
  }
  return `"${lastIso}${z}"`;
}

/** The last Timestamp's seconds written, and their RFC 3339 text without the fraction: the events of one task fall in the same second. */
let lastSeconds = -1;
let lastIso = "";

/** A key JSON.stringify would not write where the map put it: an array index comes first in a JS object, and "__proto__" is no plain key. */
const REORDERED_KEY = /^(?:0|[1-9]\d*)$|^__proto__$/;

/** google.protobuf.Struct as a JSON object (its `fields` map, entries in wire order). */
function structJson(r: ProtoReader, end: number): string {
  let out = "";
  let keys: Set<string> | undefined;
  while (r.pos < end) {
    const tag = r.varint32();
    if (tag !== ((1 << 3) | 2)) {
      skipUnknown(r, tag, 1);
      continue;
    }
    const entryEnd = r.sub(end);
    let key = "";
    let value: string | undefined;
    while (r.pos < entryEnd) {
      const t = r.varint32();
      if (t === ((1 << 3) | 2)) key = r.string();
      else if (t === ((2 << 3) | 2)) value = valueJson(r, r.sub(entryEnd));
      else skipUnknown(r, t, 2);
    }
    r.at(entryEnd);
    // A map keeps a key's last value at its first place, and an entry without a value holds an empty Value, which toJson refuses.
    if (value === undefined || REORDERED_KEY.test(key) || (keys ??= new Set()).has(key)) throw DECODE_INSTEAD;
    keys.add(key);
    out += `${out === "" ? "" : ","}${JSON.stringify(key)}:${value}`;
  }
  r.at(end);
  return `{${out}}`;
}

/** google.protobuf.Value as the JSON value it holds. */
function valueJson(r: ProtoReader, end: number): string {
  let out: string | undefined;
  while (r.pos < end) {
    const tag = r.varint32();
    let text: string;
    switch (tag) {
      case (1 << 3) | 0:
        r.varint32();
        text = "null";
        break;
      case (2 << 3) | 1: {
        const n = r.double();
        if (!Number.isFinite(n)) throw DECODE_INSTEAD;
        text = JSON.stringify(n);
        break;
      }
      case (3 << 3) | 2:
        text = JSON.stringify(r.string());
        break;
      case (4 << 3) | 0:
        text = r.varint32() !== 0 ? "true" : "false";
        break;
      case (5 << 3) | 2:
        text = structJson(r, r.sub(end));
        break;
      case (6 << 3) | 2:
        text = listValueJson(r, r.sub(end));
        break;
      default:
        skipUnknown(r, tag, 6);
        continue;
    }
    // Its kind is a oneof: a second one replaces the first.
    if (out !== undefined) throw DECODE_INSTEAD;
    out = text;
  }
  r.at(end);
  if (out === undefined) throw DECODE_INSTEAD;
  return out;
}

/** google.protobuf.ListValue as a JSON array. */
function listValueJson(r: ProtoReader, end: number): string {
  const items: string[] = [];
  while (r.pos < end) {
    const tag = r.varint32();
    if (tag !== ((1 << 3) | 2)) {
      skipUnknown(r, tag, 1);
      continue;
    }
    items.push(valueJson(r, r.sub(end)));
  }
  r.at(end);
  return `[${items.join(",")}]`;
}

/** Steps over a field of a well-known type's other numbers; one of its own numbers 1..`known` with an unexpected wire type is left to fromBinary. */
function skipUnknown(r: ProtoReader, tag: number, known: number): void {
  const n = tag >>> 3;
  if (n >= 1 && n <= known) throw DECODE_INSTEAD;
  r.skip(tag & 7);
}
