/**
 * What counts as a good answer. Every unary response the HTTP/1.1 loader
 * receives goes through one of these, before and during timing: a 200 with
 * the wrong body is an error, not a request served.
 */

/** The text every benchmark SendMessage carries; the echo agent must echo it back. */
export const ECHO_TEXT = "bench";

export type CheckName = "jsonrpc-task" | "task-wrapper" | "bare-json";

/** ProtoJSON of a SendMessageResponse's task: completed, with the echo artifact. */
function isCompletedEcho(task: unknown): boolean {
  const t = task as { status?: { state?: string }; artifacts?: Array<{ parts?: Array<{ text?: string }> }> } | undefined;
  return t?.status?.state === "TASK_STATE_COMPLETED" && t.artifacts?.[0]?.parts?.[0]?.text === ECHO_TEXT;
}

/** Returns true when `body` is the answer `check` expects. */
export function checkBody(check: CheckName, body: string): boolean {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return false;
  }
  const j = json as { result?: { task?: unknown; ok?: unknown }; task?: unknown };
  switch (check) {
    case "jsonrpc-task": // JSON-RPC: {"jsonrpc":"2.0","id":…,"result":{"task":{…}}}
      return isCompletedEcho(j.result?.task);
    case "task-wrapper": // Connect unary JSON and REST: the SendMessageResponse itself, {"task":{…}}
      return isCompletedEcho(j.task);
    case "bare-json":
      return j.result?.ok === true;
  }
}
