import type { HandlerContext } from "@connectrpc/connect";
import { create } from "@bufbuild/protobuf";
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { ListTasksResponseSchema, TaskState, type ListTasksRequest, type ListTasksResponse } from "../../../gen/a2a/v1/a2a_pb.js";
import { invalidParams } from "../../protocol/index.js";
import { resolveCall } from "../resolve-call.js";
import type { CoreDeps } from "../core-deps.js";
import { decodePageToken, encodePageToken, queryFingerprint } from "../page-token.js";
import { checkHistoryLength } from "../validate.js";

/** §3.1.4 page size bounds and default. */
export const PAGE_SIZE = { min: 1, max: 100, default: 50 } as const;

/**
 * §3.1.4: the caller's tasks, newest status first, filtered and cursor-paged.
 * Artifacts are omitted unless asked for; totalSize counts every match.
 */
export async function listTasks(deps: CoreDeps, ctx: HandlerContext, req: ListTasksRequest): Promise<ListTasksResponse> {
  const { scope } = resolveCall(deps, ctx, req.tenant);
  const pageSize = req.pageSize ?? PAGE_SIZE.default;
  if (pageSize < PAGE_SIZE.min || pageSize > PAGE_SIZE.max) {
    throw invalidParams("pageSize", `must be between ${PAGE_SIZE.min} and ${PAGE_SIZE.max}, got ${pageSize}`);
  }
  checkHistoryLength("historyLength", req.historyLength);
  if (TaskState[req.status] === undefined) throw invalidParams("status", `${req.status} is not a TaskState`);
  const state = req.status === TaskState.UNSPECIFIED ? undefined : req.status;
  const contextId = req.contextId || undefined;
  const statusAfterMs = req.statusTimestampAfter ? timestampMs(req.statusTimestampAfter) : undefined;
  const fingerprint = queryFingerprint(scope.tenant, scope.agentId, contextId, state, statusAfterMs);
  const after = req.pageToken ? decodePageToken(req.pageToken, fingerprint) : undefined;
  const page = await deps.store.listTasks(scope, {
    contextId,
    state,
    statusAfterMs,
    after,
    limit: pageSize,
    historyLength: req.historyLength,
    includeArtifacts: req.includeArtifacts ?? false,
  });
  return create(ListTasksResponseSchema, {
    tasks: page.tasks,
    nextPageToken: page.next ? encodePageToken(page.next, fingerprint) : "",
    pageSize,
    totalSize: page.total,
  });
}
