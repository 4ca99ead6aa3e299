/** The most a writer that copies its bytes out keeps between messages. */
const KEPT_BYTES = 1024 * 1024;

/** Wire types (protobuf encoding §Message Structure). */
export const WIRE = { VARINT: 0, I64: 1, LEN: 2, I32: 5 } as const;

/**
 * A growing byte buffer that writes protobuf in one pass, kept by its
 * owner from message to message. A nested message reserves one byte for
 * its length and, when it turns out longer than 127 bytes, moves its own
 * bytes up to make room: lengths come out as minimal varints, byte for
 * byte what a size-first encoder (toBinary) writes. Shared by the OTLP
 * span encoder, the store's message and task encoders and the core's wire
 * answers.
 */
export class ProtoWriter {
  buf: Buffer;
  pos = 0;

  constructor(private readonly initialBytes: number) {
    this.buf = Buffer.allocUnsafe(initialBytes);
  }

  room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  /** A varint: an integer up to 64 bits, a negative one as its two's complement (ten bytes). */
  varint(value: number): void {
    if (value >= 0 && value <= 0xffffffff) {
      this.room(5);
      let v = value >>> 0;
      while (v > 0x7f) {
        this.buf[this.pos++] = (v & 0x7f) | 0x80;
        v >>>= 7;
      }
      this.buf[this.pos++] = v;
      return;
    }
    this.varint64(BigInt(value));
  }

  /** A 64-bit varint of a bigint (int64 fields), negatives as their two's complement. */
  varint64(value: bigint): void {
    this.room(10);
    let v = BigInt.asUintN(64, value);
    while (v > 0x7fn) {
      this.buf[this.pos++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.buf[this.pos++] = Number(v);
  }

  tag(field: number, wire: number): void {
    this.varint(field * 8 + wire);
  }

  /** Starts a length-delimited field; returns where its length byte is. */
  open(field: number): number {
    this.tag(field, WIRE.LEN);
    this.room(1);
    return this.pos++;
  }

  /** Ends the field `open` started: its length goes in front of its bytes. */
  close(at: number): void {
    const len = this.pos - at - 1;
    if (len < 0x80) {
      this.buf[at] = len;
      return;
    }
    let extra = 0;
    for (let v = len >>> 7; v > 0; v >>>= 7) extra++;
    this.room(extra);
    this.buf.copy(this.buf, at + 1 + extra, at + 1, this.pos);
    this.pos += extra;
    let v = len;
    for (let i = at; v > 0x7f; i++, v >>>= 7) this.buf[i] = (v & 0x7f) | 0x80;
    this.buf[at + extra] = v;
  }

  /** A string field as UTF-8. */
  utf8(field: number, s: string): void {
    const at = this.open(field);
    this.room(s.length * 3);
    this.pos += this.buf.write(s, this.pos, "utf8");
    this.close(at);
  }

  /** A bytes field, or a message field from its encoded bytes. */
  bytes(field: number, b: Uint8Array): void {
    this.tag(field, WIRE.LEN);
    this.varint(b.length);
    this.raw(b);
  }

  /**
   * The bytes written so far, copied out (small ones from node's Buffer
   * pool: no typed array of their own). A buffer that one large message
   * grew past 1 MiB is let go rather than kept for the small ones.
   */
  copyOut(): Buffer {
    const out = Buffer.allocUnsafe(this.pos);
    this.buf.copy(out, 0, 0, this.pos);
    if (this.buf.length > KEPT_BYTES) this.buf = Buffer.allocUnsafe(this.initialBytes);
    return out;
  }

  /** The first `n` bytes of `b`, as they are. */
  raw(b: Uint8Array, n = b.length): void {
    this.room(n);
    this.buf.set(n === b.length ? b : b.subarray(0, n), this.pos);
    this.pos += n;
  }
}
