/**
 * gRPC length-prefixed messages: a 1-byte flag (0 = not compressed), a
 * 4-byte big-endian length, then the protobuf bytes.
 */
export function grpcFrame(message: Uint8Array): Buffer {
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, 5);
  return frame;
}

/** Splits a byte stream into gRPC messages, whatever the chunk boundaries. */
export class GrpcFrameReader {
  private pending: Buffer = Buffer.alloc(0);

  /** Feeds a chunk; returns the messages it completed. */
  push(chunk: Buffer): Buffer[] {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const out: Buffer[] = [];
    while (this.pending.length >= 5) {
      const len = this.pending.readUInt32BE(1);
      if (this.pending.length < 5 + len) break;
      if (this.pending[0] !== 0) throw new Error("compressed gRPC message: the bench never asks for compression");
      out.push(this.pending.subarray(5, 5 + len));
      this.pending = this.pending.subarray(5 + len);
    }
    return out;
  }
}
