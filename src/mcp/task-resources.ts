import { toJsonString } from "@bufbuild/protobuf";
import type { ReadResourceResult, Resource, ResourceTemplate } from "@modelcontextprotocol/sdk/types.js";
import { TaskSchema, TaskState, type Task } from "../../gen/a2a/v1/a2a_pb.js";
import { isA2AError, stateName } from "../core/index.js";
import type { AgentBackend } from "./agent-backend.js";
import { taskUri } from "./tool-result.js";

/**
 * An error the MCP SDK answers as a JSON-RPC error with this code and data
 * (it reads `code` and `data` off whatever a handler throws), without the SDK loaded to make one.
 */
export class ProtocolError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** MCP's code for a resource that does not exist (server/resources, "Error Handling"). */
const RESOURCE_NOT_FOUND = -32002;
/** How many recent tasks of each agent resources/list shows. */
const LISTED_PER_AGENT = 20;

/** The one resource template: a task by id. */
export const TASK_TEMPLATE: ResourceTemplate = {
  uriTemplate: "a2a://tasks/{id}",
  name: "a2a-task",
  title: "A2A task",
  description: "An A2A task of an agent you may call, as ProtoJSON: its state, history and artifacts.",
  mimeType: "application/json",
};

const TASK_URI = /^a2a:\/\/tasks\/([^/?#]+)$/;

/** The recent tasks of every agent the caller may use, as resources. */
export async function listTaskResources(backend: AgentBackend): Promise<Resource[]> {
  const out: Resource[] = [];
  for (const a of await backend.agents()) {
    for (const t of await backend.recent(a.id, LISTED_PER_AGENT)) {
      out.push({ uri: taskUri(t.id), name: t.id, title: `${a.id}: ${stateName(t.status?.state ?? TaskState.UNSPECIFIED)}`, mimeType: "application/json" });
    }
  }
  return out;
}

/**
 * Reads `a2a://tasks/{id}`: the task as the agent's GetTask gives it
 * (§3.1.3), looked for among the agents the caller may use. A task of
 * another tenant is as missing as one that never was (§13.1).
 */
export async function readTaskResource(backend: AgentBackend, uri: string): Promise<ReadResourceResult> {
  const m = TASK_URI.exec(uri);
  let id: string | undefined;
  try {
    id = m ? decodeURIComponent(m[1]!) : undefined;
  } catch {
    id = undefined;
  }
  if (id !== undefined) {
    for (const a of await backend.agents()) {
      let task: Task;
      try {
        task = await backend.get(a.id, id);
      } catch (e) {
        if (isA2AError(e) && (e.a2a === "TaskNotFound" || e.a2a === "AgentNotFound")) continue;
        throw e;
      }
      return { contents: [{ uri, mimeType: "application/json", text: toJsonString(TaskSchema, task) }] };
    }
  }
  throw new ProtocolError(RESOURCE_NOT_FOUND, `Resource not found: ${uri}`, { uri });
}
