import type { DescMethod } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import type { A2AServiceApi, SequencedEvent } from "../../core/index.js";

/**
 * One operation as a binding serves it, answered once: `In` is what the
 * binding read (JSON-RPC params, a REST route's path, query and body, a
 * decoded RPC message), turned into a call of the one service.
 */
export interface UnaryRoute<In> {
  readonly kind: "unary";
  /** The A2AService RPC it calls (§5.3). */
  readonly rpc: DescMethod;
  invoke(service: A2AServiceApi, input: In, ctx: HandlerContext): Promise<unknown>;
}

/** One operation as a binding serves it, answered with a stream of the service's sequenced events. */
export interface StreamRoute<In> {
  readonly kind: "stream";
  /** The A2AService RPC it calls (§5.3). */
  readonly rpc: DescMethod;
  /** Whether a Last-Event-ID resumes it (subscriptions); the service then replays the events after that one. */
  readonly resumable: boolean;
  /** Reads the input and opens the stream; reading errors surface on the first `next()` at the latest. */
  open(service: A2AServiceApi, input: In, ctx: HandlerContext, afterSeq?: number): AsyncIterable<SequencedEvent>;
}

/** A route of any binding: the one shape the JSON-RPC methods, the REST routes and the direct RPC routes share. */
export type ServiceRoute<In> = UnaryRoute<In> | StreamRoute<In>;
