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

/**
 * A whole gRPC-Web answer body: its messages and the status from its
 * trailer frame (flag 0x80, HTTP/1-style header lines), which gRPC-Web
 * carries in the body instead of HTTP trailers.
 */
export function readGrpcWebBody(body: Buffer): { messages: Buffer[]; grpcStatus?: string } {
  const messages: Buffer[] = [];
  let grpcStatus: string | undefined;
  let at = 0;
  while (at + 5 <= body.length) {
    const flag = body[at]!;
    const len = body.readUInt32BE(at + 1);
    const payload = body.subarray(at + 5, at + 5 + len);
    at += 5 + len;
    if (flag & 0x80) {
      const m = /^grpc-status:\s*(\d+)/im.exec(payload.toString("latin1"));
      grpcStatus = m?.[1];
    } else {
      if (flag !== 0) throw new Error("compressed gRPC-Web message: the bench never asks for compression");
      messages.push(payload);
    }
  }
  return { messages, grpcStatus };
}
