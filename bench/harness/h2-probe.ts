import * as http2 from "node:http2";
import { fromBinary } from "@bufbuild/protobuf";
import { SendMessageResponseSchema } from "a2a-hub";
import { echoProblem } from "./a2a-clients.js";
import { GrpcFrameReader, readGrpcWebBody } from "./grpc-frames.js";
import type { H2Kind } from "./request-bodies.js";
import { checkBody } from "./response-checks.js";

/** One raw HTTP/2 exchange and its whole answer. */
export interface H2Exchange {
  readonly status: number;
  readonly grpcStatus?: string;
  readonly body: Buffer;
}

/** Sends one request over prior-knowledge h2c, as the h2 loader does, on a session of its own. */
export async function h2Exchange(url: string, headers: Readonly<Record<string, string>>, body: Buffer): Promise<H2Exchange> {
  const u = new URL(url);
  const session = http2.connect(u.origin);
  try {
    return await new Promise<H2Exchange>((resolve, reject) => {
      session.once("error", reject);
      const req = session.request({ ":method": "POST", ":path": u.pathname, ...headers });
      let status = 0;
      let grpcStatus: string | undefined;
      const chunks: Buffer[] = [];
      req.on("response", (h) => {
        status = Number(h[":status"]);
        if (h["grpc-status"] !== undefined) grpcStatus = String(h["grpc-status"]); // trailers-only answer
      });
      req.on("trailers", (t) => {
        if (t["grpc-status"] !== undefined) grpcStatus = String(t["grpc-status"]);
      });
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => resolve({ status, grpcStatus, body: Buffer.concat(chunks) }));
      req.on("error", reject);
      req.end(body);
    });
  } finally {
    session.close();
  }
}

/** Why an exchange is not a completed echo task, or undefined when it is. */
export function exchangeProblem(kind: H2Kind, x: H2Exchange): string | undefined {
  if (x.status !== 200) return `HTTP ${x.status}: ${x.body.toString("utf8").slice(0, 200)}`;
  if (kind === "connect-json") return checkBody("task-wrapper", x.body.toString("utf8")) ? undefined : `body is not a completed echo task: ${x.body.toString("utf8").slice(0, 200)}`;
  const web = kind === "grpc-web" ? readGrpcWebBody(x.body) : undefined;
  const grpcStatus = web ? web.grpcStatus ?? x.grpcStatus : x.grpcStatus;
  if (grpcStatus !== "0") return `grpc-status ${grpcStatus}`;
  const messages = web ? web.messages : new GrpcFrameReader().push(x.body);
  if (messages.length !== 1) return `${messages.length} gRPC messages in a unary answer`;
  const res = fromBinary(SendMessageResponseSchema, messages[0]!);
  return echoProblem(res.payload.case === "task" ? res.payload.value : undefined);
}
