import { WIRE } from "./proto-writer.js";

/** What a ProtoReader throws on bytes that are not protobuf: its callers decide what that means (a bug, or a fallback). */
export class MalformedProto extends Error {}

/**
 * Reads protobuf binary in place, the counterpart of ProtoWriter: a
 * position over the bytes and the reads the store's wire scans and the
 * JSON writer need, with no object per field or value. A string or a
 * float reads through a Buffer view made on the first such read, so a scan
 * of tags and lengths allocates nothing.
 */
export class ProtoReader {
  pos = 0;
  readonly end: number;
  private view: Buffer | undefined;

  constructor(private readonly bytes: Uint8Array) {
    this.end = bytes.length;
  }

  /** A varint's low 32 bits, as an int32 (a longer varint, such as a negative int32's ten bytes, is read whole). */
  varint32(): number {
    let result = 0;
    for (let shift = 0; shift < 70; shift += 7) {
      const byte = this.byte();
      if (shift < 32) result |= (byte & 0x7f) << shift;
      if (byte < 0x80) return result;
    }
    throw new MalformedProto("a varint longer than ten bytes");
  }

  /** A non-negative varint up to 2^53 (tags, lengths, a Timestamp's seconds); a longer one is malformed here. */
  varintSafe(): number {
    let result = 0;
    for (let scale = 1; scale < 2 ** 53; scale *= 128) {
      const byte = this.byte();
      result += (byte & 0x7f) * scale;
      if (byte < 0x80) return result;
    }
    throw new MalformedProto("a varint beyond 2^53");
  }

  /** Reads a length and returns where that many bytes end, which must be within `limit`. */
  sub(limit: number): number {
    const length = this.varintSafe();
    const end = this.pos + length;
    if (end > limit) throw new MalformedProto("a length-delimited field runs past its message");
    return end;
  }

  /** Checks that a nested message ended exactly where its length said. */
  at(end: number): void {
    if (this.pos !== end) throw new MalformedProto("a field runs past its message");
  }

  /** Steps over one value of `wireType`; groups (3, 4) are proto2 only and malformed here. */
  skip(wireType: number): void {
    switch (wireType) {
      case WIRE.VARINT:
        this.varint32();
        return;
      case WIRE.I64:
        this.advance(8);
        return;
      case WIRE.LEN:
        this.pos = this.sub(this.end);
        return;
      case WIRE.I32:
        this.advance(4);
        return;
      default:
        throw new MalformedProto(`unexpected wire type ${wireType}`);
    }
  }

  string(): string {
    const end = this.sub(this.end);
    const text = this.buffer().toString("utf8", this.pos, end);
    this.pos = end;
    return text;
  }

  bytesBase64(): string {
    const end = this.sub(this.end);
    const text = this.buffer().toString("base64", this.pos, end);
    this.pos = end;
    return text;
  }

  fixed32(): number {
    return this.buffer().readUInt32LE(this.advance(4));
  }

  float(): number {
    return this.buffer().readFloatLE(this.advance(4));
  }

  double(): number {
    return this.buffer().readDoubleLE(this.advance(8));
  }

  /** Moves past `n` bytes; returns where they start. */
  private advance(n: number): number {
    const at = this.pos;
    if (at + n > this.end) throw new MalformedProto("a fixed-size value runs past the end");
    this.pos = at + n;
    return at;
  }

  private byte(): number {
    if (this.pos >= this.end) throw new MalformedProto("premature end of a varint");
    return this.bytes[this.pos++]!;
  }

  private buffer(): Buffer {
    const b = this.bytes;
    return (this.view ??= Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength));
  }
}
