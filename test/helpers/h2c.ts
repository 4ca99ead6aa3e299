import type { ClientHttp2Session, OutgoingHttpHeaders } from "node:http2";

/** One HTTP/2 answer, body read in full as text. */
export interface H2Reply {
  readonly status: number;
  /** The Content-Type header as sent. */
  readonly type: string;
  readonly text: string;
}

/** Sends one request on an HTTP/2 session and reads its whole answer. */
export function h2Request(session: ClientHttp2Session, headers: OutgoingHttpHeaders, body?: string): Promise<H2Reply> {
  return new Promise((resolve, reject) => {
    const stream = session.request(headers);
    let text = "";
    let status = 0;
    let type = "";
    stream.on("response", (h) => {
      status = Number(h[":status"]);
      type = String(h["content-type"]);
    });
    stream.setEncoding("utf8");
    stream.on("data", (d: string) => (text += d));
    stream.on("end", () => resolve({ status, type, text }));
    stream.on("error", reject);
    stream.end(body);
  });
}

/** The headers of a JSON-RPC POST / over h2c. */
export const H2_JSONRPC_POST: OutgoingHttpHeaders = { ":method": "POST", ":path": "/", "content-type": "application/json" };
