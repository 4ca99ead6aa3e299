/**
 * SendMessage through the client stacks people run, rather than the
 * bench's own h2 loader: `@grpc/grpc-js` (what @a2a-js/sdk's GrpcTransport
 * uses) and connect-node's four transports. Each call is a new message
 * (§3.3.1) and each answer is decoded and checked by the stack itself.
 */
import * as grpc from "@grpc/grpc-js";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { A2AService, SendMessageRequestSchema, SendMessageResponseSchema } from "a2a-hub";
import { benchMessage, echoProblem } from "./a2a-clients.js";

/** The client stacks a row can be loaded with. */
export type ClientStack = "grpc-js" | "connect-h1" | "connect-h2" | "connect-grpc" | "connect-grpcweb";

/** One channel of a stack: a connection (or, on HTTP/1.1, a pool) that calls share. */
export interface StackChannel {
  /** One SendMessage; resolves with why its answer is wrong, or undefined. */
  call(): Promise<string | undefined>;
  close(): void;
}

const SEND_MESSAGE = "/lf.a2a.v1.A2AService/SendMessage";
/** §3.2.6: the SDK reads a missing A2A-Version as 0.3. */
const VERSION_HEADER = { "a2a-version": "1.0" } as const;

const failure = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** grpc-js with a subchannel pool of its own: channels to one target otherwise share one connection. */
function grpcJsChannel(baseUrl: string): StackChannel {
  const client = new grpc.Client(new URL(baseUrl).host, grpc.credentials.createInsecure(), { "grpc.use_local_subchannel_pool": 1 });
  const metadata = new grpc.Metadata();
  metadata.set("a2a-version", VERSION_HEADER["a2a-version"]);
  const serialize = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const deserialize = (bytes: Buffer): Buffer => bytes;
  return {
    call: () =>
      new Promise((resolve) => {
        const request = toBinary(SendMessageRequestSchema, create(SendMessageRequestSchema, { message: benchMessage() }));
        client.makeUnaryRequest(SEND_MESSAGE, serialize, deserialize, request, metadata, (error, answer) => {
          if (error || !answer) return resolve(error ? `grpc-js: ${error.code} ${error.details}` : "grpc-js: no answer");
          const res = fromBinary(SendMessageResponseSchema, answer);
          resolve(echoProblem(res.payload.case === "task" ? res.payload.value : undefined));
        });
      }),
    close: () => client.close(),
  };
}

/** A connect-node transport of the stack's protocol, on a connection (h2) or socket pool (h1) of its own. */
function connectChannel(stack: Exclude<ClientStack, "grpc-js">, baseUrl: string): StackChannel {
  const transport =
    stack === "connect-h1"
      ? createConnectTransport({ baseUrl, httpVersion: "1.1" })
      : stack === "connect-h2"
        ? createConnectTransport({ baseUrl, httpVersion: "2" })
        : stack === "connect-grpc"
          ? createGrpcTransport({ baseUrl })
          : createGrpcWebTransport({ baseUrl, httpVersion: "2", useBinaryFormat: true });
  const client = createClient(A2AService, transport);
  return {
    call: async () => {
      try {
        const res = await client.sendMessage({ message: benchMessage() }, { headers: VERSION_HEADER });
        return echoProblem(res.payload.case === "task" ? res.payload.value : undefined);
      } catch (e) {
        return `${stack}: ${failure(e)}`;
      }
    },
    // connect-node's session manager closes an idle HTTP/2 connection by itself; h1 sockets are the agent's.
    close: () => undefined,
  };
}

/** A channel of `stack` to the server at `baseUrl`. */
export function stackChannel(stack: ClientStack, baseUrl: string): StackChannel {
  return stack === "grpc-js" ? grpcJsChannel(baseUrl) : connectChannel(stack, baseUrl);
}

/** Channels a loader opens for `inFlight` calls: four, as a client pool would, or fewer for fewer calls. */
export function channelCount(stack: ClientStack, inFlight: number): number {
  // connect-node's HTTP/1.1 transport takes a socket per call in flight from Node's agent: one "channel" holds them all.
  return stack === "connect-h1" ? 1 : Math.min(4, inFlight);
}
