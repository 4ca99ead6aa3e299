import { Code, ConnectError } from "@connectrpc/connect";
import { joined, readRequestBody, type HttpRequest } from "../../../http/index.js";
import { requestClosed } from "../direct-context.js";

/** A gRPC length-prefixed message: 1 flag byte, 4 bytes big-endian length, the message. */
const PREFIX_BYTES = 5;
/** Flag bit of a compressed message. */
const COMPRESSED = 0b1;

/**
 * A message in its gRPC wire form: the 5-byte prefix (uncompressed) and the
 * bytes; `tail`, bytes to send right after it (a gRPC-Web trailer frame),
 * goes into the same buffer, so the answer is copied once.
 */
export function grpcFrame(message: Uint8Array, tail?: Uint8Array): Buffer {
  const end = PREFIX_BYTES + message.length;
  const frame = Buffer.allocUnsafe(end + (tail?.length ?? 0));
  frame[0] = 0;
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, PREFIX_BYTES);
  if (tail) frame.set(tail, end);
  return frame;
}

/**
 * Reads the one request message of a unary or server-streaming call from an
 * uncompressed gRPC request body. The errors are those of the gRPC
 * protocol as connect-node raises them for the same body, so a client sees
 * the same status whichever path served it: a declared length past
 * `readMaxBytes` is RESOURCE_EXHAUSTED before it is read, no message or a
 * second one UNIMPLEMENTED, a truncated one INVALID_ARGUMENT. Rejects with
 * the signal's reason when it aborts first (the call's deadline).
 */
export function readOneMessage(req: HttpRequest, readMaxBytes: number, signal: AbortSignal | undefined, kind: "unary" | "server-streaming"): Promise<Uint8Array> {
  let declared = -1;
  return readRequestBody(req, signal, {
    chunk(chunks, received) {
      if (declared < 0 && received >= PREFIX_BYTES) {
        const head = joined(chunks, received);
        if ((head[0]! & COMPRESSED) !== 0) return new ConnectError("received compressed envelope, but do not know how to decompress", Code.Internal);
        declared = head.readUInt32BE(1);
        if (declared > readMaxBytes) return new ConnectError(`message size ${declared} is larger than configured readMaxBytes ${readMaxBytes}`, Code.ResourceExhausted);
      }
      if (declared >= 0 && received > PREFIX_BYTES + declared) {
        return new ConnectError(`protocol error: received extra input message for ${kind} method`, Code.Unimplemented);
      }
      return undefined;
    },
    end(chunks, received) {
      if (received === 0) return new ConnectError(`protocol error: missing input message for ${kind} method`, Code.Unimplemented);
      if (declared < 0 || received < PREFIX_BYTES + declared) return new ConnectError("protocol error: incomplete envelope", Code.InvalidArgument);
      return joined(chunks, received).subarray(PREFIX_BYTES);
    },
    gone: requestClosed,
  });
}
