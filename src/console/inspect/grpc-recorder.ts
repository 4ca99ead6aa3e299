import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { maskedHeaders, type RecordedExchange } from "./recorded-exchange.js";

/**
 * Records each gRPC call of the inspector as an exchange: the request
 * metadata, the response headers, and once the call ends its status
 * (§10: grpc-status, grpc-message) and trailers.
 */
export function grpcRecorder(onExchange: (e: RecordedExchange, done: boolean) => void, firstId: () => number): Interceptor {
  return (next) => async (req) => {
    const started = performance.now();
    const ex: RecordedExchange = { id: firstId(), method: "POST", url: req.url, requestHeaders: maskedHeaders(req.header.entries()) };
    const finish = (e?: unknown, trailer?: Headers): void => {
      const err = e === undefined ? undefined : ConnectError.from(e);
      ex.grpcStatus = err ? Code[err.code] : "OK";
      if (err) ex.grpcMessage = err.rawMessage;
      ex.trailers = maskedHeaders((err?.metadata ?? trailer ?? new Headers()).entries());
      ex.totalMs = Math.round(performance.now() - started);
      onExchange(ex, true);
    };
    let res;
    try {
      res = await next(req);
    } catch (e) {
      ex.headMs = Math.round(performance.now() - started);
      finish(e);
      throw e;
    }
    ex.status = 200;
    ex.responseHeaders = maskedHeaders(res.header.entries());
    ex.headMs = Math.round(performance.now() - started);
    onExchange(ex, false);
    if (!res.stream) {
      finish(undefined, res.trailer);
      return res;
    }
    const messages = res.message;
    const trailer = res.trailer;
    return {
      ...res,
      message: (async function* () {
        try {
          yield* messages;
          finish(undefined, trailer);
        } catch (e) {
          finish(e);
          throw e;
        }
      })(),
    };
  };
}
