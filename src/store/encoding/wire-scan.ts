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

const VARINT = 0;
const FIXED64 = 1;
const LENGTH_DELIMITED = 2;
const FIXED32 = 5;

/** Where one field's value lies; reused from field to field. */
class Cursor {
  pos = 0;
  field = 0;
  type = 0;
  start = 0;
  end = 0;

  constructor(private readonly bytes: Uint8Array) {}

  /** Moves to the next field; false at the end of the message. */
  next(): boolean {
    if (this.pos >= this.bytes.length) return false;
    const tag = this.varint();
    this.field = Math.floor(tag / 8);
    this.type = tag % 8;
    switch (this.type) {
      case VARINT:
        this.start = this.pos;
        while (this.byte() & 0x80);
        break;
      case FIXED64:
        this.start = this.pos;
        this.pos += 8;
        break;
      case LENGTH_DELIMITED: {
        const length = this.varint();
        this.start = this.pos;
        this.pos += length;
        break;
      }
      case FIXED32:
        this.start = this.pos;
        this.pos += 4;
        break;
      default:
        // Groups (3, 4) are proto2 only; nothing the hub encodes has them.
        throw new Error(`wire scan: unexpected wire type ${this.type} for field ${this.field}`);
    }
    if (this.pos > this.bytes.length) throw new Error(`wire scan: field ${this.field} runs past the end of the message`);
    this.end = this.pos;
    return true;
  }

  private byte(): number {
    if (this.pos >= this.bytes.length) throw new Error("wire scan: premature end of a varint");
    return this.bytes[this.pos++]!;
  }

  /** A varint up to 2^53 (tags and lengths are far below it). */
  private varint(): number {
    let value = 0;
    let scale = 1;
    for (;;) {
      const b = this.byte();
      value += (b & 0x7f) * scale;
      if ((b & 0x80) === 0) return value;
      scale *= 128;
    }
  }
}

/** The encoded values of every occurrence of a length-delimited field, as views of `bytes`. */
export function fieldValues(bytes: Uint8Array, field: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  const c = new Cursor(bytes);
  while (c.next()) if (c.field === field && c.type === LENGTH_DELIMITED) out.push(bytes.subarray(c.start, c.end));
  return out;
}

/** The encoded value of a singular message field, as a view of `bytes`: its last occurrence, as protobuf merges them. */
export function fieldValue(bytes: Uint8Array, field: number): Uint8Array | undefined {
  const c = new Cursor(bytes);
  let start = -1;
  let end = -1;
  while (c.next()) {
    if (c.field === field && c.type === LENGTH_DELIMITED) {
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
