/**
 * One level of protobuf wire format, scanned for a length-delimited field.
 * The store slices the rows it writes beside an event (status, history,
 * artifact parts) out of the event's own bytes on every write
 * (event-rows.ts); protobuf-es's BinaryReader made a reader, a DataView, a
 * [field, type] pair per tag and a view per value for that, about a tenth
 * of what a SendMessage allocated. This scan allocates only the views it
 * returns. It reads bytes toBinary just wrote, so a malformed message is
 * a bug and throws.
 */
import { MalformedProto, ProtoReader, WIRE } from "../../codec/index.js";

/** Where one field's value lies; reused from field to field. */
class Cursor {
  field = 0;
  type = 0;
  start = 0;
  end = 0;
  private readonly reader: ProtoReader;

  constructor(bytes: Uint8Array) {
    this.reader = new ProtoReader(bytes);
  }

  /** Where the next field begins. */
  get pos(): number {
    return this.reader.pos;
  }

  /** Moves to the next field; false at the end of the message. */
  next(): boolean {
    const r = this.reader;
    if (r.pos >= r.end) return false;
    try {
      const tag = r.varintSafe();
      this.field = Math.floor(tag / 8);
      this.type = tag % 8;
      // A length-delimited value starts after its length; every other one where it lies.
      if (this.type === WIRE.LEN) {
        this.end = r.sub(r.end);
        this.start = r.pos;
        r.pos = this.end;
      } else {
        this.start = r.pos;
        r.skip(this.type);
        this.end = r.pos;
      }
    } catch (e) {
      // These are bytes toBinary just wrote: a malformed message is a bug.
      if (e instanceof MalformedProto) throw new Error(`wire scan: ${e.message} (field ${this.field})`);
      throw e;
    }
    return true;
  }
}

/** The encoded values of every occurrence of a length-delimited field, as views of `bytes`. */
export function fieldValues(bytes: Uint8Array, field: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  const c = new Cursor(bytes);
  while (c.next()) if (c.field === field && c.type === WIRE.LEN) out.push(bytes.subarray(c.start, c.end));
  return out;
}

/** The encoded value of a singular message field, as a view of `bytes`: its last occurrence, as protobuf merges them. */
export function fieldValue(bytes: Uint8Array, field: number): Uint8Array | undefined {
  const c = new Cursor(bytes);
  let start = -1;
  let end = -1;
  while (c.next()) {
    if (c.field === field && c.type === WIRE.LEN) {
      start = c.start;
      end = c.end;
    }
  }
  return start < 0 ? undefined : bytes.subarray(start, end);
}

/** A copy of the encoded message without any occurrence of `field`. */
export function withoutField(bytes: Uint8Array, field: number): Uint8Array {
  // Two passes over the tags: the size, then the copy, so no list of pieces is built.
  let size = 0;
  for (let c = new Cursor(bytes), from = 0; c.next(); from = c.pos) if (c.field !== field) size += c.pos - from;
  const out = new Uint8Array(size);
  let at = 0;
  for (let c = new Cursor(bytes), from = 0; c.next(); from = c.pos) {
    if (c.field === field) continue;
    out.set(bytes.subarray(from, c.pos), at);
    at += c.pos - from;
  }
  return out;
}

/**
 * Where the first field numbered above `field` begins (the end when none
 * does): the place toBinary, which writes fields in number order, would
 * have put `field` in a message encoded without it.
 */
export function placeOf(bytes: Uint8Array, field: number): number {
  for (let c = new Cursor(bytes), from = 0; c.next(); from = c.pos) if (c.field > field) return from;
  return bytes.length;
}
