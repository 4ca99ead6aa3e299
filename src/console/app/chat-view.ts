import { create, fromJson, type JsonValue } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import {
  MessageSchema,
  PartSchema,
  Role,
  TaskState,
  type Artifact,
  type Message,
  type Part,
  type StreamResponse,
  type Task,
  type TaskStatus,
} from "../../../gen/a2a/v1/a2a_pb.js";
import { composerHints } from "./composer-hints.js";
import { field, fill, h } from "./dom.js";
import { errorText, hub, type FetchedCard } from "./hub-client.js";
import { isTerminal, stateName } from "../../protocol/index.js";
import { mergeArtifact, renderArtifact, renderMessage, stateBadge, when } from "./parts.js";
import { onWireFrame, type WireFrame } from "./wire-log.js";

/** The conversation, kept while the page lives so switching views loses nothing. */
interface ChatState {
  agentId: string;
  contextId: string;
  task?: Task;
  statuses: TaskStatus[];
  updates: Map<string, number>;
  /** Every turn in order: messages, and each earlier task's artifacts once the next turn starts. */
  transcript: (Message | Artifact)[];
  /** Messages refused (by messageId), with why. */
  refused: Map<string, string>;
  frames: WireFrame[];
  calls: number;
  busy: boolean;
  error: string;
}

const state: ChatState = fresh("");
/** The mounted view's regions, redrawn from state. */
let view:
  | { transcript: HTMLElement; task: HTMLElement; frames: HTMLElement; send: HTMLButtonElement; cancel: HTMLButtonElement; error: HTMLElement; hint: HTMLElement; announce: HTMLElement }
  | undefined;

function fresh(agentId: string): ChatState {
  return { agentId, contextId: "", task: undefined, statuses: [], updates: new Map(), transcript: [], refused: new Map(), frames: [], calls: 0, busy: false, error: "" };
}

// The raw pane: every frame of the chat's own calls, in the order they crossed the wire.
onWireFrame((f) => {
  if (state.calls === 0) return;
  state.frames.push(f);
  if (view) view.frames.append(frameItem(f));
});

function frameItem(f: WireFrame): HTMLElement {
  let text = f.text;
  try {
    text = JSON.stringify(JSON.parse(f.text), null, 1);
  } catch {
    /* not JSON: shown as it came */
  }
  return h("li", { class: `frame ${f.direction}`, "data-method": f.method }, h("span", { class: "dir" }, f.direction === "sent" ? "→ " : "← ", f.method), h("pre", {}, text));
}

function randomId(): string {
  const b = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

/** The Chat view: pick an agent, send text, a file or JSON data, watch the task live, cancel, follow up. */
export function chatView(root: HTMLElement, cards: readonly FetchedCard[], agentId?: string): void {
  const usable = cards.filter((c) => c.card);
  const chosen = agentId && usable.some((c) => c.entry.id === agentId) ? agentId : state.agentId || usable[0]?.entry.id || "";
  if (chosen !== state.agentId && !state.busy) Object.assign(state, fresh(chosen));

  const agentSelect = h("select", { name: "agent" }, usable.map((c) => h("option", { value: c.entry.id, selected: c.entry.id === chosen }, `${c.card!.name} (${c.entry.id})`)));
  agentSelect.addEventListener("change", () => (location.hash = `#/chat/${encodeURIComponent(agentSelect.value)}`));
  const text = h("textarea", { name: "text", rows: 3 });
  const file = h("input", { type: "file", name: "file" });
  const data = h("textarea", { name: "data", rows: 2, placeholder: '{"key": "value"}', spellcheck: "false" });
  const send = h("button", { type: "submit" }, "Send");
  const cancel = h("button", { type: "button", class: "danger" }, "Cancel task");
  const reset = h("button", { type: "button" }, "New conversation");
  const error = h("p", { class: "error", role: "alert" });
  const hint = h("p", { class: "hint", "aria-live": "polite" });
  const form = h(
    "form",
    { class: "compose", "aria-label": "Send a message" },
    field("Agent", agentSelect),
    field("Message", text, "Ctrl+Enter sends."),
    composerHints(usable.find((c) => c.entry.id === chosen)?.card, text),
    h("details", {}, h("summary", {}, "Attach a file or JSON data"), field("File part", file), field("Data part (JSON)", data)),
    hint,
    h("div", { class: "buttons" }, send, cancel, reset),
    error,
  );
  text.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) form.requestSubmit();
  });
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    void submit(usable.find((c) => c.entry.id === state.agentId), text, file, data);
  });
  cancel.addEventListener("click", () => void cancelTask());
  reset.addEventListener("click", () => {
    Object.assign(state, fresh(state.agentId));
    form.reset();
    if (view) fill(view.frames);
    redraw();
  });

  view = {
    transcript: h("div", { class: "transcript", "aria-live": "polite", "aria-label": "Conversation" }),
    task: h("section", { class: "task-panel", "aria-label": "Task" }),
    frames: h("ol", { class: "frames", "aria-label": "Wire frames" }),
    send,
    cancel,
    error,
    hint,
    // The task panel is redrawn per event; screen readers hear only each new state, once.
    announce: h("p", { class: "visually-hidden", role: "status" }),
  };
  fill(
    root,
    h("h1", { tabindex: -1 }, "Chat"),
    view.announce,
    usable.length === 0 ? h("p", {}, "No agent with a readable card is available.") : null,
    h("div", { class: "chat" }, h("div", { class: "chat-main" }, form, view.transcript, view.task), h("details", { class: "raw-pane", open: true }, h("summary", {}, "Raw frames"), view.frames)),
  );
  view.frames.append(...state.frames.map(frameItem));
  redraw();
}

/** A transcript entry: a message (marked when refused) or an earlier task's artifact. */
function renderItem(x: Message | Artifact): HTMLElement {
  if ("artifactId" in x) return renderArtifact(x);
  const el = renderMessage(x);
  const why = state.refused.get(x.messageId);
  if (why) {
    el.classList.add("refused");
    el.append(h("p", { class: "refusal", role: "note" }, h("strong", {}, "Refused: "), why));
  }
  return el;
}

function redraw(): void {
  if (!view || !view.transcript.isConnected) return;
  // Messages are appended, not redrawn, so the live region announces each new one only.
  const shown = view.transcript.children.length;
  if (shown > state.transcript.length) fill(view.transcript);
  view.transcript.append(...state.transcript.slice(view.transcript.children.length).map(renderItem));
  const t = state.task;
  view.send.disabled = state.busy;
  view.cancel.disabled = !t || isTerminal(t.status?.state);
  view.error.textContent = state.error;
  const interrupted = t && (t.status?.state === TaskState.INPUT_REQUIRED || t.status?.state === TaskState.AUTH_REQUIRED);
  view.hint.textContent = interrupted ? `The agent needs input: your next message continues task ${t.id}.` : state.contextId ? `Messages continue context ${state.contextId}.` : "";
  if (!t) return fill(view.task);
  const said = `Task ${t.id} is ${stateName(t.status?.state, "short")}.`;
  if (view.announce.textContent !== said) view.announce.textContent = said;
  fill(
    view.task,
    h("h2", {}, "Task ", h("a", { href: `#/task/${encodeURIComponent(state.agentId)}/${encodeURIComponent(t.id)}` }, h("code", {}, t.id)), " ", stateBadge(t.status?.state)),
    h("h3", {}, "Status changes"),
    h(
      "ol",
      { class: "statuses" },
      state.statuses.map((s) => h("li", {}, stateBadge(s.state), " ", when(s.timestamp), s.message ? ` — ${s.message.parts.map((p) => (p.content.case === "text" ? p.content.value : "")).join("")}` : "")),
    ),
    h("h3", {}, "Artifacts"),
    t.artifacts.length ? t.artifacts.map((a) => renderArtifact(a, state.updates.get(a.artifactId))) : h("p", {}, "None yet."),
  );
}

async function buildParts(text: HTMLTextAreaElement, file: HTMLInputElement, data: HTMLTextAreaElement): Promise<Part[]> {
  const parts: Part[] = [];
  if (text.value.trim()) parts.push(create(PartSchema, { content: { case: "text", value: text.value } }));
  const f = file.files?.[0];
  if (f) parts.push(create(PartSchema, { content: { case: "raw", value: new Uint8Array(await f.arrayBuffer()) }, filename: f.name, mediaType: f.type || "application/octet-stream" }));
  if (data.value.trim()) {
    let parsed: JsonValue;
    try {
      parsed = JSON.parse(data.value) as JsonValue;
    } catch (e) {
      throw new Error(`The data part is not JSON: ${e instanceof Error ? e.message : String(e)}`);
    }
    parts.push(create(PartSchema, { content: { case: "data", value: fromJson(ValueSchema, parsed) }, mediaType: "application/json" }));
  }
  if (parts.length === 0) throw new Error("Write a message, attach a file or give JSON data first.");
  return parts;
}


async function submit(agent: FetchedCard | undefined, text: HTMLTextAreaElement, file: HTMLInputElement, data: HTMLTextAreaElement): Promise<void> {
  if (!agent || state.busy) return;
  state.error = "";
  let parts: Part[];
  try {
    parts = await buildParts(text, file, data);
  } catch (e) {
    state.error = errorText(e);
    return redraw();
  }
  const t = state.task;
  // §3.4.3: a message to an interrupted task carries its id; otherwise a new task in the same context.
  const continues = t && !isTerminal(t.status?.state) && (t.status?.state === TaskState.INPUT_REQUIRED || t.status?.state === TaskState.AUTH_REQUIRED);
  const message = create(MessageSchema, { messageId: randomId(), role: Role.USER, parts, contextId: state.contextId, taskId: continues ? t.id : "" });
  // A new turn: the finished task's artifacts stay in the conversation, in order, before it.
  if (!continues && t) state.transcript.push(...t.artifacts);
  state.transcript.push(message);
  if (!continues) {
    state.task = undefined;
    state.statuses = [];
    state.updates = new Map();
  }
  state.busy = true;
  state.calls++;
  redraw();
  text.value = "";
  file.value = "";
  data.value = "";
  const request = { tenant: agent.entry.id, message };
  try {
    if (agent.card?.capabilities?.streaming) {
      for await (const ev of hub.sendStreamingMessage(request)) {
        apply(ev);
        redraw();
      }
    } else {
      const res = await hub.sendMessage(request);
      if (res.payload.case === "task") apply({ payload: res.payload } as StreamResponse);
      else if (res.payload.case === "message") apply({ payload: res.payload } as StreamResponse);
    }
  } catch (e) {
    state.error = errorText(e);
    state.refused.set(message.messageId, state.error);
    const at = state.transcript.indexOf(message);
    // Already drawn: redrawn from this message on, now marked.
    if (view && at >= 0) [...view.transcript.children].slice(at).forEach((c) => c.remove());
  } finally {
    state.busy = false;
    // Let the raw pane's recorder see the end-of-stream frame before it stops listening.
    setTimeout(() => state.calls--, 250);
    redraw();
  }
}

/** Applies one stream event (§3.1.6 order: Task, then status and artifact updates). */
function apply(ev: StreamResponse): void {
  const p = ev.payload;
  switch (p.case) {
    case "task":
      state.task = p.value;
      state.contextId = p.value.contextId;
      if (p.value.status) state.statuses.push(p.value.status);
      for (const a of p.value.artifacts) state.updates.set(a.artifactId, (state.updates.get(a.artifactId) ?? 0) + 1);
      return;
    case "message":
      state.contextId = p.value.contextId || state.contextId;
      state.transcript.push(p.value);
      return;
    case "statusUpdate": {
      const s = p.value.status;
      if (!s || !state.task) return;
      state.task.status = s;
      pushStatus(s);
      if (s.message) state.transcript.push(s.message);
      return;
    }
    case "artifactUpdate": {
      const a = p.value.artifact;
      if (!a || !state.task) return;
      mergeArtifact(state.task.artifacts, a, p.value.append);
      state.updates.set(a.artifactId, (state.updates.get(a.artifactId) ?? 0) + 1);
      return;
    }
  }
}

/** Records a status change; the same change seen twice (the stream and a cancel's answer) once. */
function pushStatus(s: TaskStatus): void {
  const last = state.statuses[state.statuses.length - 1];
  const same = last && last.state === s.state && last.timestamp?.seconds === s.timestamp?.seconds && last.timestamp?.nanos === s.timestamp?.nanos;
  if (!same) state.statuses.push(s);
}

async function cancelTask(): Promise<void> {
  const t = state.task;
  if (!t) return;
  state.calls++;
  try {
    const task = await hub.cancelTask({ tenant: state.agentId, id: t.id });
    // The stream, if open, also reports the change; a unary chat learns it here.
    if (state.task && task.status) {
      state.task.status = task.status;
      pushStatus(task.status);
    }
  } catch (e) {
    state.error = `Cancel failed: ${errorText(e)}`;
  } finally {
    setTimeout(() => state.calls--, 250);
    redraw();
  }
}

