/// <reference lib="dom" />
/**
 * The a2a-hub console: a page that calls the hub only through the public
 * A2A API (Connect, via connect-web) and the agent cards. Views by hash:
 * #/agents, #/chat[/agent], #/tasks[/agent], #/task/agent/id, #/inspect
 * (any agent by URL; /console?agent=<URL> opens it on that agent).
 */
import { agentsView } from "./agents-view.js";
import { chatView } from "./chat-view.js";
import { fill, h } from "./dom.js";
import { inspectView } from "./inspect-view.js";
import { allCards, forgetCards, token } from "./hub-client.js";
import { leaveTaskView, taskView } from "./task-view.js";
import { tasksView } from "./tasks-view.js";

const VIEWS = [
  ["agents", "Agents"],
  ["chat", "Chat"],
  ["tasks", "Tasks"],
  ["inspect", "Inspect"],
] as const;

const main = h("main", { id: "main" });
const nav = h(
  "nav",
  { "aria-label": "Views" },
  h(
    "ul",
    {},
    VIEWS.map(([id, label]) => h("li", {}, h("a", { href: `#/${id}`, "data-view": id }, label))),
  ),
);
const tokenInput = h("input", { id: "token", type: "password", name: "token", autocomplete: "off", value: token.get() });
const tokenForm = h(
  "form",
  { class: "token", hidden: true },
  h("label", { for: "token" }, "Bearer token"),
  tokenInput,
  h("button", { type: "submit" }, "Use token"),
  h("button", { type: "button", id: "forget-token" }, "Forget"),
);
tokenForm.addEventListener("submit", (e) => {
  e.preventDefault();
  setToken(tokenInput.value.trim());
});
tokenForm.querySelector("#forget-token")!.addEventListener("click", () => {
  tokenInput.value = "";
  setToken("");
});

function setToken(value: string): void {
  token.set(value);
  forgetCards();
  void route(true);
}

document.body.replaceChildren(
  h("a", { class: "skip", href: "#main" }, "Skip to content"),
  h("header", {}, h("a", { class: "brand", href: "#/agents" }, "a2a-hub console"), nav, tokenForm),
  main,
);

let routing = 0;

/** Draws the view the hash names; `focus` moves focus to its heading (keyboard and screen-reader users land there). */
async function route(focus: boolean): Promise<void> {
  const mine = ++routing;
  leaveTaskView();
  const shared = new URLSearchParams(location.search).get("agent") ?? undefined;
  if (shared && !location.hash) history.replaceState(null, "", `${location.pathname}${location.search}#/inspect`);
  const [view = "agents", a, b] = location.hash
    .replace(/^#\/?/, "")
    .split("/")
    .map((s) => decodeURIComponent(s));
  for (const link of nav.querySelectorAll("a")) {
    const current = link.dataset.view === view || (view === "task" && link.dataset.view === "tasks");
    if (current) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  main.setAttribute("aria-busy", "true");
  let loaded: Awaited<ReturnType<typeof allCards>>;
  try {
    loaded = await allCards();
  } catch (e) {
    main.removeAttribute("aria-busy");
    return fill(main, h("h1", {}, "The hub did not answer"), h("p", { role: "alert" }, String(e)));
  }
  if (mine !== routing) return;
  const { catalog, cards } = loaded;
  // A tenant hub answers the catalog 401 without a token: that is when the field is needed.
  tokenForm.hidden = !(token.get() || !catalog.ok);
  main.removeAttribute("aria-busy");
  if (!catalog.ok) {
    fill(
      main,
      h("h1", { tabindex: -1 }, catalog.status === 401 ? "A token is needed" : "The hub refused"),
      h("p", { role: "alert" }, catalog.status === 401 ? `This hub has tenants: enter your bearer token above. (${catalog.message})` : catalog.message),
    );
    if (catalog.status === 401) tokenInput.focus();
    return;
  }
  if (view === "inspect") inspectView(main, shared);
  else if (view === "chat") chatView(main, cards, a);
  else if (view === "tasks") tasksView(main, cards, a);
  else if (view === "task" && a && b) await taskView(main, cards.find((c) => c.entry.id === a), b);
  else agentsView(main, cards);
  if (focus && mine === routing) main.querySelector<HTMLElement>("h1")?.focus();
}

window.addEventListener("hashchange", () => void route(true));
void route(false);
