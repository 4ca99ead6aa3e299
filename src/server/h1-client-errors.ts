import type * as net from "node:net";
import type { DoorRefusal } from "./door-limits.js";

/** The limits a broken HTTP/1.1 request can run into, by Node's error code. */
const LIMIT_OF: Readonly<Record<string, DoorRefusal>> = {
  // headersTimeout, and requestTimeout (the backstop behind the body timer): the headers never finished.
  ERR_HTTP_REQUEST_TIMEOUT: "limits.headersTimeoutMs",
  HPE_HEADER_OVERFLOW: "limits.maxHeaderBytes",
};

/** The status Node's own handler answers each error with (RFC 9110 §15.5), kept when a listener takes over. */
const STATUS_OF: Readonly<Record<string, string>> = {
  ERR_HTTP_REQUEST_TIMEOUT: "408 Request Timeout",
  HPE_HEADER_OVERFLOW: "431 Request Header Fields Too Large",
  HPE_CHUNK_EXTENSIONS_OVERFLOW: "413 Payload Too Large",
};

/**
 * An HTTP/1.1 connection whose request Node's parser gave up on: answered
 * as Node would answer it, and, when a limit of ours was the cause, told to
 * `refused` so that it is counted and logged like every other refusal at the
 * door. A connection reset by the client needs no answer.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: net.Socket, refused: (reason: DoorRefusal) => void): void {
  const code = error.code ?? "";
  const limit = LIMIT_OF[code];
  if (limit) refused(limit);
  const answering = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  // Written before the destroy, as Node's own handler does: a socket's write goes out at once when it can.
  if (code !== "ECONNRESET" && socket.writable && !answering?.headersSent) {
    socket.write(`HTTP/1.1 ${STATUS_OF[code] ?? "400 Bad Request"}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  }
  socket.destroy();
}
