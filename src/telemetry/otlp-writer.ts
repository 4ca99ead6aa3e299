/** Room for a nested message's length before it is known: one byte, enough below 128 bytes (most attributes). */
const LENGTH_ROOM = 1;

/**
 * Protobuf wire encoding (varints, fixed64, length-delimited fields) into
 * one growing buffer, for the OTLP span records (otlp-span-encoding.ts).
 * A nested message is written in place and its length set afterwards
 * (`open`/`close`), moving the message only when the length takes more
 * than one byte. `take()` hands out what was written since the last take
 * as a view of the buffer, so many small records share one allocation
 * outside the JavaScript heap, which a scavenge never copies.
 */
export class OtlpWriter {
  private buf: Buffer;
  private pos = 0;
  /** Where the bytes not yet taken begin. */
  private mark = 0;

  constructor(private readonly slabBytes = 64 * 1024) {
    this.buf = Buffer.allocUnsafeSlow(slabBytes);
  }

  /** The bytes written since the last take, as a view that stays valid after later writes. */
  take(): Uint8Array {
    const out = this.buf.subarray(this.mark, this.pos);
    this.mark = this.pos;
    return out;
  }

  /** Forgets what was written since the last take (a record that failed halfway). */
  drop(): void {
    this.pos = this.mark;
  }

  /** Makes room for `n` more bytes: a new buffer when full, the record in progress carried over (earlier views keep the old one). */
  private room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const pending = this.pos - this.mark;
    const next = Buffer.allocUnsafeSlow(Math.max(this.slabBytes, 2 * (pending + n)));
    this.buf.copy(next, 0, this.mark, this.pos);
    this.buf = next;
    this.mark = 0;
    this.pos = pending;
  }

  tag(field: number, wireType: number): void {
    this.varint((field << 3) | wireType);
  }

  /** A varint; negative integers as int64 two's complement (ten bytes), as protobuf encodes them. */
  varint(value: number): void {
    this.room(10);
    const b = this.buf;
    if (value >= 0 && value <= 0xffffffff) {
      let v = value >>> 0;
      while (v > 0x7f) {
        b[this.pos++] = (v & 0x7f) | 0x80;
        v >>>= 7;
      }
      b[this.pos++] = v;
      return;
    }
    const big = BigInt.asUintN(64, BigInt(value));
    let lo = Number(big & 0xffffffffn);
    let hi = Number(big >> 32n);
    while (hi > 0 || lo > 0x7f) {
      b[this.pos++] = (lo & 0x7f) | 0x80;
      lo = ((lo >>> 7) | ((hi & 0x7f) << 25)) >>> 0;
      hi >>>= 7;
    }
    b[this.pos++] = lo;
  }

  fixed32(value: number): void {
    this.room(4);
    this.buf.writeUInt32LE(value >>> 0, this.pos);
    this.pos += 4;
  }

  /**
   * Nanoseconds of an OTel HrTime [seconds, nanos] as fixed64, exact: a
   * double holds nanoseconds since 1970 only to ~256 ns, so the seconds are
   * split at 16 bits and each product (< 2^53) added in 32-bit halves.
   */
  hrTime(time: readonly [number, number]): void {
    const [seconds, nanos] = time;
    const low16 = (seconds % 0x10000) * 1e9;
    const high = Math.floor(seconds / 0x10000) * 1e9;
    const lowSum = (low16 >>> 0) + (((high % 0x10000) * 0x10000) >>> 0) + nanos;
    const hi32 = Math.floor(low16 / 0x100000000) + Math.floor(high / 0x10000) + Math.floor(lowSum / 0x100000000);
    this.room(8);
    this.buf.writeUInt32LE(lowSum >>> 0, this.pos);
    this.buf.writeUInt32LE(hi32 >>> 0, this.pos + 4);
    this.pos += 8;
  }

  double(value: number): void {
    this.room(8);
    this.buf.writeDoubleLE(value, this.pos);
    this.pos += 8;
  }

  /** A string field's payload: length and UTF-8 bytes. */
  string(value: string): void {
    const n = value.length;
    let ascii = true;
    for (let i = 0; i < n; i++) {
      if (value.charCodeAt(i) > 0x7f) {
        ascii = false;
        break;
      }
    }
    if (!ascii) return this.bytes(Buffer.from(value, "utf8"));
    this.varint(n);
    this.room(n);
    const b = this.buf;
    for (let i = 0; i < n; i++) b[this.pos++] = value.charCodeAt(i);
  }

  /** A bytes field's payload: length and the bytes. */
  bytes(value: Uint8Array): void {
    this.varint(value.length);
    this.room(value.length);
    this.buf.set(value, this.pos);
    this.pos += value.length;
  }

  /** A bytes field's payload from hex (trace and span ids), decoded straight into the buffer. */
  hexBytes(hex: string): void {
    const n = hex.length >>> 1;
    this.varint(n);
    this.room(n);
    const written = this.buf.write(hex, this.pos, n, "hex");
    // Node stops at the first character that is not hex: the field keeps its declared length, zero-filled, so the message stays whole.
    if (written < n) this.buf.fill(0, this.pos + written, this.pos + n);
    this.pos += n;
  }

  /** Starts a nested message; returns where (from the record's start: a new buffer moves the record), for `close`. */
  open(): number {
    this.room(LENGTH_ROOM);
    const at = this.pos - this.mark;
    this.pos += LENGTH_ROOM;
    return at;
  }

  /** Ends the nested message begun at `offset`: its length goes before it. */
  close(offset: number): void {
    let at = this.mark + offset;
    const length = this.pos - at - LENGTH_ROOM;
    if (length < 0x80) {
      this.buf[at] = length;
      return;
    }
    let size = 1;
    for (let v = length; v > 0x7f; v >>>= 7) size++;
    this.room(size - LENGTH_ROOM);
    at = this.mark + offset;
    this.buf.copyWithin(at + size, at + LENGTH_ROOM, this.pos);
    this.pos += size - LENGTH_ROOM;
    let v = length;
    let p = at;
    while (v > 0x7f) {
      this.buf[p++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buf[p] = v;
  }
}
