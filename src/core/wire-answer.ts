import { create, toBinary } from "@bufbuild/protobuf";
import { SendMessageResponseSchema, TaskSchema, type Message } from "../../gen/a2a/v1/a2a_pb.js";
import type { StoreScope, TaskStore, TaskView } from "../store/index.js";

/**
 * An answer already in protobuf binary, for the bindings that write it as
 * is (gRPC, gRPC-Web). Why: a task read back for an answer was decoded
 * from the store's bytes into a Task only for the gRPC binding to encode
 * it again; measured on gRPC SendMessage, the encode alone (with the
 * buffers it grows and drops) was a tenth of the hub's CPU per call. The
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

/** SendMessageResponse's `task` member: a length-delimited field (wire type 2) of the oneof. */
const TASK_TAG = SendMessageResponseSchema.field.task.number * 8 + 2;

/** The task's bytes as the store holds them, or, from a store that keeps no wire form, its Task encoded. */
export async function readTaskWire(store: TaskStore, scope: StoreScope, taskId: string, view: TaskView): Promise<Uint8Array | undefined> {
  if (store.getTaskWire) return store.getTaskWire(scope, taskId, view);
  const task = await store.getTask(scope, taskId, view);
  return task && toBinary(TaskSchema, task);
}

/** SendMessageResponse{task}: the Task's bytes behind the field's tag and length, the same to the byte as toBinary of it. */
export function taskAnswer(task: Uint8Array, taskId: string, contextId?: string): WireAnswer {
  let lengthSize = 1;
  for (let n = task.length; n >= 0x80; n = Math.floor(n / 0x80)) lengthSize++;
  const out = Buffer.allocUnsafe(1 + lengthSize + task.length);
  out[0] = TASK_TAG;
  let at = 1;
  let n = task.length;
  while (n >= 0x80) {
    out[at++] = (n % 0x80) | 0x80;
    n = Math.floor(n / 0x80);
  }
  out[at++] = n;
  out.set(task, at);
  return new WireAnswer(out, taskId, contextId);
}

/** SendMessageResponse{message}: a direct Message (§3.1.1), encoded as it comes. */
export function messageAnswer(message: Message): WireAnswer {
  const bytes = toBinary(SendMessageResponseSchema, create(SendMessageResponseSchema, { payload: { case: "message", value: message } }));
  return new WireAnswer(bytes, message.taskId || undefined, message.contextId || undefined);
}
