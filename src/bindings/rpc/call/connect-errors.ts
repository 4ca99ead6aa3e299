import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type HandlerContext } from "@connectrpc/connect";
import { A2A_ERROR_DOMAIN, isA2AError, type Logger } from "../../../core/index.js";
import { BadRequestSchema, ErrorInfoSchema } from "../../../../gen/google/rpc/error_details_pb.js";

/**
 * §10.6: an A2AError becomes the status code of the §5.4 table with a
 * google.rpc.ErrorInfo detail (and BadRequest for invalid fields). Anything
 * else that is not already a ConnectError is an internal error whose
 * details stay in the log, never on the wire.
 */
export function toConnectError(e: unknown, logger: Logger): ConnectError {
  if (isA2AError(e)) {
    const details: ConstructorParameters<typeof ConnectError>[3] = [
      { desc: ErrorInfoSchema, value: create(ErrorInfoSchema, { reason: e.row.reason, domain: A2A_ERROR_DOMAIN, metadata: { ...e.metadata } }) },
    ];
    if (e.violations.length > 0) {
      details.push({ desc: BadRequestSchema, value: create(BadRequestSchema, { fieldViolations: e.violations.map((v) => ({ ...v })) }) });
    }
    return new ConnectError(e.message, e.row.grpcCode, undefined, details, e);
  }
  if (e instanceof ConnectError) return e;
  logger.error("unexpected error in an RPC", { error: e instanceof Error ? e.stack ?? e.message : String(e) });
  return new ConnectError("internal error", Code.Internal);
}

/**
 * The error of a call whose deadline (grpc-timeout, Connect-Timeout-Ms)
 * has passed, if it has: its context's signal aborted with it.
 */
export function deadlineOf(ctx: HandlerContext): ConnectError | undefined {
  const reason: unknown = ctx.signal.aborted ? ctx.signal.reason : undefined;
  return reason instanceof ConnectError && reason.code === Code.DeadlineExceeded ? reason : undefined;
}
