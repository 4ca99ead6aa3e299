import { create, toBinary } from "@bufbuild/protobuf";
import { SendMessageResponseSchema, TaskSchema, type Message } from "../../gen/a2a/v1/a2a_pb.js";
import { ProtoWriter } from "../codec/index.js";
import type { StoreScope, TaskStore, TaskView } from "../store/index.js";

/**
 * An answer already in protobuf binary, for the bindings that write it as
 * is (gRPC, gRPC-Web, Connect's binary codec). Why: a task read back for an answer was decoded
 * from the store's bytes into a Task only for the gRPC binding to encode
 * it again (what that cost: docs/performance-notes.md). The
 * ids are what the request log and the span note of the answer
 * (telemetry/request-outcome.ts reads them as it reads a Task's).
 */
export class WireAnswer {
  constructor(
    readonly bytes: Uint8Array,
    readonly taskId?: string,
    readonly contextId?: string,
  ) {}
}

/** SendMessageResponse's `task` member, from the descriptor. */
const TASK_FIELD = SendMessageResponseSchema.field.task.number;

/** Kept from answer to answer; taskAnswer calls nothing that writes into it. */
const writer = new ProtoWriter(16 * 1024);

/** The task's bytes as the store holds them, or, from a store that keeps no wire form, its Task encoded. */
export async function readTaskWire(store: TaskStore, scope: StoreScope, taskId: string, view: TaskView): Promise<Uint8Array | undefined> {
  if (store.getTaskWire) return store.getTaskWire(scope, taskId, view);
  const task = await store.getTask(scope, taskId, view);
  return task && toBinary(TaskSchema, task);
}

/** SendMessageResponse{task}: the Task's bytes behind the field's tag and length, the same to the byte as toBinary of it. */
export function taskAnswer(task: Uint8Array, taskId: string, contextId?: string): WireAnswer {
  writer.pos = 0;
  writer.bytes(TASK_FIELD, task);
  return new WireAnswer(writer.copyOut(), taskId, contextId);
}

/** SendMessageResponse{message}: a direct Message (§3.1.1), encoded as it comes. */
export function messageAnswer(message: Message): WireAnswer {
  const bytes = toBinary(SendMessageResponseSchema, create(SendMessageResponseSchema, { payload: { case: "message", value: message } }));
  return new WireAnswer(bytes, message.taskId || undefined, message.contextId || undefined);
}
