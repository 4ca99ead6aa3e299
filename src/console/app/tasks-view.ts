import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { TaskState, type ListTasksResponse, type Task } from "../../../gen/a2a/v1/a2a_pb.js";
import { field, fill, h } from "./dom.js";
import { errorText, hub, type FetchedCard } from "./hub-client.js";
import { stateName } from "../../protocol/index.js";
import { stateBadge, when } from "./parts.js";

/** The filters and the keyset position, kept while the page lives. */
const state = {
  agentId: "",
  contextId: "",
  status: TaskState.UNSPECIFIED,
  after: "",
  pageSize: 20,
  /** The page token of each page visited so far; the last is the current page's. */
  tokens: [""],
};

/** The Tasks view: ListTasks with filters, keyset paging (next/previous) and the total. */
export function tasksView(root: HTMLElement, cards: readonly FetchedCard[], agentId?: string): void {
  const ids = cards.map((c) => c.entry.id);
  const chosen = agentId && ids.includes(agentId) ? agentId : ids.includes(state.agentId) ? state.agentId : ids[0] ?? "";
  if (chosen !== state.agentId) Object.assign(state, { agentId: chosen, tokens: [""] });

  const agent = h("select", { name: "agent" }, ids.map((id) => h("option", { value: id, selected: id === chosen }, id)));
  const context = h("input", { name: "contextId", value: state.contextId, autocomplete: "off" });
  const status = h(
    "select",
    { name: "status" },
    h("option", { value: TaskState.UNSPECIFIED }, "any"),
    Object.values(TaskState)
      .filter((v): v is TaskState => typeof v === "number" && v !== TaskState.UNSPECIFIED)
      .map((v) => h("option", { value: v, selected: v === state.status }, stateName(v, "short"))),
  );
  const after = h("input", { type: "datetime-local", name: "after", value: state.after, step: 1 });
  const size = h("select", { name: "pageSize" }, [10, 20, 50, 100].map((n) => h("option", { value: n, selected: n === state.pageSize }, String(n))));
  const form = h(
    "form",
    { class: "filters", "aria-label": "Task filters" },
    field("Agent", agent),
    field("Context ID", context),
    field("State", status),
    field("Updated after", after),
    field("Page size", size),
    h("div", { class: "buttons" }, h("button", { type: "submit" }, "Apply")),
  );
  const results = h("div", { class: "results", "aria-live": "polite" });
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    Object.assign(state, { agentId: agent.value, contextId: context.value.trim(), status: Number(status.value), after: after.value, pageSize: Number(size.value), tokens: [""] });
    void load(results);
  });
  fill(root, h("h1", { tabindex: -1 }, "Tasks"), form, results);
  void load(results);
}

async function load(results: HTMLElement): Promise<void> {
  if (!state.agentId) return fill(results, h("p", {}, "No agent is available to this token."));
  results.setAttribute("aria-busy", "true");
  let page: ListTasksResponse;
  try {
    page = await hub.listTasks({
      tenant: state.agentId,
      contextId: state.contextId,
      status: state.status,
      pageSize: state.pageSize,
      pageToken: state.tokens[state.tokens.length - 1],
      statusTimestampAfter: state.after ? timestampFromDate(new Date(state.after)) : undefined,
    });
  } catch (e) {
    results.removeAttribute("aria-busy");
    return fill(results, h("p", { class: "error", role: "alert" }, errorText(e)));
  }
  results.removeAttribute("aria-busy");
  const n = state.tokens.length;
  const first = (n - 1) * state.pageSize + 1;
  const prev = h("button", { type: "button", disabled: n === 1 }, "Previous page");
  const next = h("button", { type: "button", disabled: !page.nextPageToken }, "Next page");
  prev.addEventListener("click", () => {
    state.tokens.pop();
    void load(results).then(() => results.querySelector<HTMLButtonElement>("button:not([disabled])")?.focus());
  });
  next.addEventListener("click", () => {
    state.tokens.push(page.nextPageToken);
    void load(results).then(() => results.querySelector<HTMLButtonElement>("button:not([disabled]):last-of-type")?.focus());
  });
  const summary = page.tasks.length ? `Tasks ${first}–${first + page.tasks.length - 1} of ${page.totalSize} · page ${n}` : `No tasks on this page (${page.totalSize} in total)`;
  fill(
    results,
    h("p", { class: "summary", "data-total": page.totalSize, "data-page": n }, summary),
    h(
      "div",
      { class: "scroll" },
      h(
        "table",
        { class: "tasks" },
        h("caption", { class: "visually-hidden" }, summary),
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Task"), h("th", { scope: "col" }, "First message"), h("th", { scope: "col" }, "State"), h("th", { scope: "col" }, "Updated"), h("th", { scope: "col" }, "Context"))),
        h(
          "tbody",
          {},
          page.tasks.map((t) =>
            h(
              "tr",
              { "data-task-id": t.id },
              h("td", {}, h("a", { href: `#/task/${encodeURIComponent(state.agentId)}/${encodeURIComponent(t.id)}` }, h("code", {}, t.id))),
              h("td", { class: "preview" }, preview(t)),
              h("td", {}, stateBadge(t.status?.state)),
              h("td", {}, when(t.status?.timestamp)),
              h("td", {}, h("code", {}, t.contextId)),
            ),
          ),
        ),
      ),
    ),
    h("nav", { class: "pager", "aria-label": "Pages" }, prev, next),
  );
}

/** The first words of the task's first message (its history is oldest first), so a list can be scanned by what was asked. */
function preview(t: Task): string {
  const first = t.history[0];
  const text = (first?.parts ?? []).map((p) => (p.content.case === "text" ? p.content.value : p.content.case === "data" ? "{data}" : p.content.case ? `[${p.filename || "file"}]` : "")).join(" ").replace(/\s+/g, " ").trim();
  return text.length > 60 ? `${text.slice(0, 60).replace(/\s\S*$/, "")}…` : text;
}
