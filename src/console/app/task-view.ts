import { fromJson, toJson, type JsonValue } from "@bufbuild/protobuf";
import { StreamResponseSchema, TaskSchema, TaskState, type StreamResponse, type Task } from "../../../gen/a2a/v1/a2a_pb.js";
import { fill, h, json } from "./dom.js";
import { authHeaders, errorText, hub, type FetchedCard } from "./hub-client.js";
import { deliveryCells, DELIVERY_COLUMNS, deliveryStateOf, PUSH_DELIVERY_STATE_URI } from "./push-delivery.js";
import { isTerminal } from "../../protocol/index.js";
import { renderArtifact, renderMessage, stateBadge, when } from "./parts.js";

/** The timeline's reader of the page shown now; leaving the page stops it. */
let reading: AbortController | undefined;

/** Stops the open timeline stream, if any (called when the view changes). */
export function leaveTaskView(): void {
  reading?.abort();
  reading = undefined;
}


/** A task's page: status, history, artifacts, its event timeline and its push configs. */
export async function taskView(root: HTMLElement, agent: FetchedCard | undefined, taskId: string): Promise<void> {
  leaveTaskView();
  const agentId = agent?.entry.id ?? "";
  let task: Task;
  // §4.6: the hub's delivery-state extension, activated when the agent's card declares it.
  const delivery = agent?.card?.capabilities?.extensions.some((e) => e.uri === PUSH_DELIVERY_STATE_URI) === true;
  try {
    task = await hub.getTask({ tenant: agentId, id: taskId }, delivery ? { headers: { "a2a-extensions": PUSH_DELIVERY_STATE_URI } } : {});
  } catch (e) {
    return fill(root, h("h1", { tabindex: -1 }, "Task"), h("p", { class: "error", role: "alert" }, errorText(e)));
  }
  // A finished task cannot be canceled (§3.1.5): no button rather than a dead one.
  const cancel = h("button", { type: "button", class: "danger", hidden: isTerminal(task.status?.state) }, "Cancel task");
  const note = h("p", { role: "status" });
  cancel.addEventListener("click", () => {
    hub.cancelTask({ tenant: agentId, id: taskId }).then(
      (t) => {
        fill(note, "Now ", stateBadge(t.status?.state));
        cancel.hidden = isTerminal(t.status?.state);
      },
      (e: unknown) => fill(note, `Cancel failed: ${errorText(e)}`),
    );
  });
  const timeline = h("ol", { class: "timeline", "aria-label": "Event timeline" });
  const timelineNote = h("p", { class: "hint" });
  const pushes = h("div", { class: "pushes" });
  fill(
    root,
    h("h1", { tabindex: -1 }, "Task ", h("code", {}, task.id)),
    h("p", {}, h("a", { href: `#/tasks/${encodeURIComponent(agentId)}` }, `← Tasks of ${agentId}`)),
    h(
      "dl",
      {},
      h("dt", {}, "State"),
      h("dd", {}, stateBadge(task.status?.state)),
      h("dt", {}, "Updated"),
      h("dd", {}, when(task.status?.timestamp)),
      h("dt", {}, "Context"),
      h("dd", {}, h("code", {}, task.contextId)),
    ),
    h("div", { class: "buttons" }, cancel),
    note,
    h("h2", {}, "History"),
    task.history.length ? h("div", { class: "transcript" }, task.history.map(renderMessage)) : h("p", {}, "No messages."),
    h("h2", {}, "Artifacts"),
    task.artifacts.length ? task.artifacts.map((a) => renderArtifact(a)) : h("p", {}, "None."),
    h("h2", {}, "Event timeline"),
    timelineNote,
    timeline,
    h("h2", {}, "Push notification configs"),
    pushes,
    h("details", {}, h("summary", {}, "Raw task JSON"), h("pre", { class: "raw" }, json(toJson(TaskSchema, task)))),
  );
  void loadPushConfigs(pushes, agentId, taskId, delivery ? deliveryStateOf(task) : undefined);
  void loadTimeline(timeline, timelineNote, agent, taskId, task.status?.state);
}

/** The task's push configs, with each one's delivery state when the extension answered it. */
async function loadPushConfigs(el: HTMLElement, agentId: string, taskId: string, states: ReturnType<typeof deliveryStateOf> | undefined): Promise<void> {
  try {
    const res = await hub.listTaskPushNotificationConfigs({ tenant: agentId, taskId });
    fill(
      el,
      res.configs.length === 0
        ? h("p", {}, "None.")
        : h(
            "div",
            { class: "scroll" },
            h(
              "table",
              {},
              h(
                "thead",
                {},
                h("tr", {}, h("th", { scope: "col" }, "Config"), h("th", { scope: "col" }, "Webhook URL"), h("th", { scope: "col" }, "Authentication"), states ? DELIVERY_COLUMNS.map((c) => h("th", { scope: "col" }, c)) : []),
              ),
              h(
                "tbody",
                {},
                res.configs.map((c) =>
                  h(
                    "tr",
                    { "data-config-id": c.id },
                    h("td", {}, h("code", {}, c.id)),
                    h("td", {}, h("code", {}, c.url)),
                    h("td", {}, c.authentication?.scheme ?? "none"),
                    states ? deliveryCells(states.get(c.id)) : [],
                  ),
                ),
              ),
            ),
          ),
      states
        ? h("p", { class: "hint" }, "Delivery state as of the task's load, from the hub's push-delivery-state extension.")
        : h("p", { class: "hint" }, "This agent's card does not offer the push-delivery-state extension, so delivery state is not shown."),
    );
  } catch (e) {
    fill(el, h("p", {}, errorText(e)));
  }
}

/** One line of the timeline for a logged event. */
function eventLine(seq: string, ev: StreamResponse): HTMLElement {
  const p = ev.payload;
  const what =
    p.case === "task"
      ? ["task ", stateBadge(p.value.status?.state)]
      : p.case === "statusUpdate"
        ? ["status ", stateBadge(p.value.status?.state), ` ${when(p.value.status?.timestamp)}`]
        : p.case === "artifactUpdate"
          ? [`artifact ${p.value.artifact?.artifactId ?? ""}${p.value.append ? " (append)" : ""}${p.value.lastChunk ? " (last chunk)" : ""}`]
          : p.case === "message"
            ? ["message"]
            : ["(empty)"];
  return h("li", { "data-seq": seq }, h("span", { class: "seq" }, `#${seq} `), what);
}

/**
 * The task's event log, replayed through the agent's HTTP+JSON interface:
 * §11.7's subscribe stream with `Last-Event-ID: 0` resumes from the first
 * logged event, and does so for finished tasks too (Connect has no resume
 * point, and §3.1.6 refuses a plain subscribe to a terminal task).
 */
/** Appends each event of one SSE stream of the log; returns the last one read, with its id. */
async function appendLogged(list: HTMLElement, body: NonNullable<Response["body"]>): Promise<{ id: string; event: StreamResponse } | undefined> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  let last: { id: string; event: StreamResponse } | undefined;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return last;
    buf += value;
    let end: number;
    while ((end = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, end);
      buf = buf.slice(end + 2);
      let id = "";
      let data = "";
      for (const line of block.split("\n")) {
        if (line.startsWith("id:")) id = line.slice(3).trim();
        else if (line.startsWith("data:")) data += line.slice(5).trim();
      }
      if (!data) continue;
      const event = fromJson(StreamResponseSchema, JSON.parse(data) as JsonValue, { ignoreUnknownFields: true });
      list.append(eventLine(id, event));
      last = { id, event };
    }
  }
}

/** §3.2.2: the states in which a task waits for the client. */
function isInterruptedState(state: TaskState | undefined): boolean {
  return state === TaskState.INPUT_REQUIRED || state === TaskState.AUTH_REQUIRED;
}

/** Whether an event leaves its task waiting for the client. */
function isInterruptedEvent(e: StreamResponse): boolean {
  return isInterruptedState(e.payload.case === "statusUpdate" ? e.payload.value.status?.state : undefined);
}

async function loadTimeline(list: HTMLElement, note: HTMLElement, agent: FetchedCard | undefined, taskId: string, stateNow: TaskState | undefined): Promise<void> {
  const rest = agent?.card?.supportedInterfaces.find((i) => i.protocolBinding === "HTTP+JSON");
  if (!rest) return fill(note, "This agent's card lists no HTTP+JSON interface, which the timeline is read from.");
  const ctl = (reading = new AbortController());
  try {
    // §3.1.6: a subscription ends at the first interrupted state (input-required,
    // auth-required); a task that went on afterwards has more in its log, read by
    // resuming after the last event, until a stream brings nothing or ends terminal.
    // A task still waiting now is not resumed: its timeline ends at that wait.
    let after = "0";
    for (let round = 0; ; round++) {
      const res = await fetch(`${rest.url.replace(/\/$/, "")}/tasks/${encodeURIComponent(taskId)}:subscribe`, {
        headers: { ...authHeaders(), accept: "text/event-stream", "last-event-id": after, "a2a-version": "1.0" },
        signal: ctl.signal,
      });
      if (!res.ok || !res.body) return fill(note, `The event log is not available (HTTP ${res.status}).`);
      if (round === 0) fill(note, "Every event the task logged, in order; a running task's new events appear as they happen.");
      const last = await appendLogged(list, res.body);
      if (!last || !isInterruptedEvent(last.event) || isInterruptedState(stateNow)) break;
      after = last.id;
    }
    note.append(` The log ends here (${list.children.length} events).`);
  } catch (e) {
    if (!ctl.signal.aborted) note.append(` Reading the log failed: ${errorText(e)}`);
  }
}

