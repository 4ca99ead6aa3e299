import { create, fromJson, type JsonValue } from "@bufbuild/protobuf";
import { AgentCardSchema, MessageSchema, PartSchema, Role, SendMessageResponseSchema, StreamResponseSchema, type AgentCard, type StreamResponse } from "../../../gen/a2a/v1/a2a_pb.js";
import { renderCard } from "./agents-view.js";
import { missingFields, missingFieldsV03, type CardProblem } from "./card-check.js";
import { applyEvent, awaitsInput, newTurn, renderTurn, type Turn } from "./conversation.js";
import { field, fill, h, json } from "./dom.js";
import { exchangeItem } from "./exchange-item.js";
import { composerHints } from "./composer-hints.js";
import { agentTokens, inspect, type RecordedExchange, type InspectedCard } from "./inspect-client.js";

/** One call in the raw pane: what was asked (replayable) and its exchanges. */
interface Call {
  readonly n: number;
  readonly body: { operation: string; interfaceIndex: number; request: JsonValue };
  readonly title: string;
  readonly exchanges: Map<number, RecordedExchange>;
  outcome?: string;
}

/** The inspected agent and the conversation, kept while the page lives. */
const state = {
  url: "",
  jwksUrl: "",
  card: undefined as InspectedCard | undefined,
  parsed: undefined as AgentCard | undefined,
  cardError: "",
  cardCall: undefined as Call | undefined,
  interfaceIndex: 0,
  turns: [] as Turn[],
  calls: [] as Call[],
  busy: false,
  /** The message being written, kept across redraws (a stream redraws the view per event). */
  draft: "",
};

let root: HTMLElement | undefined;

function randomId(): string {
  return crypto.randomUUID();
}

/** The Inspect view: any agent by URL, its card checked, a conversation over any binding its card offers, every exchange, replay. */
export function inspectView(el: HTMLElement, agentUrl?: string): void {
  root = el;
  if (agentUrl && agentUrl !== state.url) void load(agentUrl);
  else draw();
}

/** Reads the card of the agent at `url` through the hub; the view's own URL then names it (/console?agent=…), so it can be shared. */
async function load(url: string): Promise<void> {
  Object.assign(state, { url, card: undefined, parsed: undefined, cardError: "", interfaceIndex: 0, turns: [], calls: [], busy: true });
  history.replaceState(null, "", `${location.pathname}?agent=${encodeURIComponent(url)}#/inspect`);
  const call: Call = { n: 0, body: { operation: "card", interfaceIndex: -1, request: null }, title: "Read the agent card", exchanges: new Map() };
  state.cardCall = call;
  draw();
  await inspect("card", { url, token: agentTokens.get(url) || undefined, jwksUrl: state.jwksUrl || undefined }, (line) => {
    if ("exchange" in line) call.exchanges.set(line.exchange.id, line.exchange);
    else if ("card" in line) {
      state.card = line.card;
      try {
        state.parsed = fromJson(AgentCardSchema, line.card.card as JsonValue, { ignoreUnknownFields: true });
      } catch (e) {
        state.cardError = `the card does not read as a v1.0 AgentCard: ${String(e)}`;
      }
    } else if ("error" in line) state.cardError = line.error.message;
    draw();
  }).catch((e: unknown) => (state.cardError = String(e)));
  state.busy = false;
  draw();
}

function problemsOf(c: InspectedCard): CardProblem[] {
  return c.version === "0.3" ? missingFieldsV03(c.raw) : missingFields(c.raw);
}

function draw(): void {
  if (!root) return;
  const url = h("input", { name: "agent-url", type: "url", value: state.url, placeholder: "https://agent.example.com/ or …/agent-card.json", required: true, autocomplete: "url" });
  const token = h("input", { name: "agent-token", type: "password", autocomplete: "off", value: state.url ? agentTokens.get(state.url) : "" });
  const jwks = h("input", { name: "jwks-url", type: "url", value: state.jwksUrl, autocomplete: "off" });
  const form = h(
    "form",
    { class: "inspect-form", "aria-label": "Agent to inspect" },
    field("Agent URL", url, "Its base URL (the card is read at /.well-known/agent-card.json) or the card's own URL."),
    field("Token for this agent", token, "Kept in this tab only; sent only in calls to this agent, through the hub, which does not keep it."),
    field("Trusted JWKS URL (optional)", jwks, "Keys to verify a signed card with; without it the key the signature names is tried."),
    h("div", { class: "buttons" }, h("button", { type: "submit", disabled: state.busy }, "Inspect")),
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    agentTokens.set(url.value.trim(), token.value.trim());
    state.jwksUrl = jwks.value.trim();
    state.url = "";
    void load(url.value.trim());
  });
  fill(
    root,
    h("h1", { tabindex: -1 }, "Inspect an agent"),
    form,
    state.url ? h("p", {}, h("a", { href: `${location.pathname}?agent=${encodeURIComponent(state.url)}#/inspect`, class: "share" }, "Link to this view")) : null,
    state.cardError ? h("p", { class: "error", role: "alert" }, state.cardError) : null,
    state.card ? h("div", { class: "chat" }, h("div", { class: "chat-main" }, cardSection(state.card), state.parsed ? chatSection(state.parsed) : null), rawPane()) : state.cardCall ? rawPane() : null,
  );
}

function cardSection(c: InspectedCard): HTMLElement {
  const problems = problemsOf(c);
  const sig = c.signature;
  return h(
    "section",
    { class: "card inspected", "data-card-version": c.version },
    h("h2", {}, state.parsed?.name ?? "Agent", h("small", {}, ` A2A ${c.version} card`)),
    h("p", {}, h("code", {}, c.cardUrl)),
    h("p", { class: `signature sig-${sig.state}`, "data-signature": sig.state }, h("strong", {}, `Signature: ${sig.state}. `), sig.detail),
    h("h3", {}, "Card problems"),
    h("p", { class: "problem-status", "data-problems": problems.length }, problems.length ? `${problems.length} problem${problems.length === 1 ? "" : "s"} found:` : `No problems found: every field A2A ${c.version} requires is present.`),
    h("ul", { class: "problems" }, problems.map((p) => h("li", {}, h("code", {}, p.where), ` ${p.what}`))),
    state.parsed ? h("details", {}, h("summary", {}, "The card"), renderCard(state.parsed)) : null,
    h("details", {}, h("summary", {}, "Raw card JSON"), h("pre", { class: "raw" }, json(c.raw))),
  );
}

function chatSection(card: AgentCard): HTMLElement {
  const iface = h(
    "select",
    { name: "interface" },
    card.supportedInterfaces.map((i, n) => h("option", { value: n, selected: n === state.interfaceIndex }, `${i.protocolBinding} ${i.protocolVersion} — ${i.url}`)),
  );
  iface.addEventListener("change", () => (state.interfaceIndex = Number(iface.value)));
  const text = h("textarea", { name: "text", rows: 3 });
  text.value = state.draft;
  text.addEventListener("input", () => (state.draft = text.value));
  const send = h("button", { type: "submit", disabled: state.busy }, "Send");
  const reset = h("button", { type: "button" }, "New conversation");
  const form = h(
    "form",
    { class: "compose", "aria-label": "Send a message to the agent" },
    field("Interface", iface, "Calls go through the hub's own client over this binding."),
    field("Message", text, "Ctrl+Enter sends."),
    composerHints(card, text),
    h("div", { class: "buttons" }, send, reset),
  );
  text.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) form.requestSubmit();
  });
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    if (!text.value.trim()) return;
    state.draft = "";
    void sendText(card, text.value);
  });
  reset.addEventListener("click", () => {
    state.turns = [];
    draw();
  });
  const last = state.turns[state.turns.length - 1];
  return h(
    "section",
    { class: "inspect-chat", "aria-label": "Conversation" },
    h("h2", {}, "Conversation"),
    form,
    h("div", { class: "transcript", "aria-live": "polite" }, state.turns.map((t, i) => renderTurn(t, i + 1))),
    last?.contextId ? h("p", { class: "hint" }, awaitsInput(last) ? `The agent needs input: your next message continues task ${last.taskId}.` : `Messages continue context ${last.contextId}.`) : null,
  );
}

/** Sends a text message in the conversation: a new task in the same context, or the interrupted task's next message. */
function sendText(card: AgentCard, text: string): Promise<void> {
  const last = state.turns[state.turns.length - 1];
  const message = {
    messageId: randomId(),
    role: "ROLE_USER",
    parts: [{ text }],
    ...(last?.contextId ? { contextId: last.contextId } : {}),
    ...(awaitsInput(last) ? { taskId: last!.taskId } : {}),
  };
  return run({ operation: card.capabilities?.streaming ? "stream" : "send", interfaceIndex: state.interfaceIndex, request: { message } });
}

/** Makes one call through the hub: a conversation turn when it sends a message, its exchanges in the raw pane. */
async function run(body: Call["body"]): Promise<void> {
  if (!state.card || state.busy) return;
  const iface = state.parsed?.supportedInterfaces[body.interfaceIndex];
  const call: Call = { n: state.calls.length + 1, body, title: `${body.operation} over ${iface?.protocolBinding ?? "?"} ${iface?.protocolVersion ?? ""}`, exchanges: new Map() };
  state.calls.push(call);
  const msg = (body.request as { message?: JsonValue } | null)?.message;
  let turn: Turn | undefined;
  if (msg) {
    let sent;
    try {
      sent = fromJson(MessageSchema, msg, { ignoreUnknownFields: true });
    } catch {
      sent = create(MessageSchema, { role: Role.USER, parts: [create(PartSchema, { content: { case: "text", value: JSON.stringify(msg) } })] });
    }
    turn = newTurn(sent);
    state.turns.push(turn);
  }
  state.busy = true;
  draw();
  await inspect("call", { url: state.url, card: state.card.raw, token: agentTokens.get(state.url) || undefined, ...body }, (line) => {
    if ("exchange" in line) call.exchanges.set(line.exchange.id, line.exchange);
    else if ("event" in line && turn) applyEvent(turn, fromJson(StreamResponseSchema, line.event as JsonValue, { ignoreUnknownFields: true }));
    else if ("result" in line) {
      call.outcome = "answered";
      if (turn) {
        const r = fromJson(SendMessageResponseSchema, line.result as JsonValue, { ignoreUnknownFields: true });
        if (r.payload.case) applyEvent(turn, { payload: r.payload } as StreamResponse);
      }
    } else if ("error" in line) {
      call.outcome = `${line.error.name}: ${line.error.message}`;
      if (turn) turn.refused = call.outcome;
    }
    draw();
  }).catch((e: unknown) => {
    call.outcome = String(e);
    if (turn) turn.refused = call.outcome;
  });
  state.busy = false;
  draw();
}

function rawPane(): HTMLElement {
  const calls = state.cardCall ? [state.cardCall, ...state.calls] : state.calls;
  return h(
    "details",
    { class: "raw-pane", open: true },
    h("summary", {}, "Raw exchanges"),
    h(
      "ol",
      { class: "calls", "aria-label": "Calls and their HTTP exchanges" },
      calls.map((c) =>
        h(
          "li",
          { class: "call", "data-call": c.n, "data-operation": c.body.operation },
          h("div", { class: "call-head" }, h("strong", {}, c.title), c.body.request !== null ? replayButton(c) : null),
          c.outcome && c.outcome !== "answered" ? h("p", { class: "error" }, c.outcome) : null,
          h("ol", { class: "exchanges" }, [...c.exchanges.values()].map(exchangeItem)),
        ),
      ),
    ),
  );
}

/** Edit and replay: the call's request as JSON, sent again (with a new messageId unless unticked). */
function replayButton(c: Call): HTMLElement {
  const wrap = h("div", { class: "replay" });
  const open = h("button", { type: "button" }, "Edit and replay");
  open.addEventListener("click", () => {
    const editor = h("textarea", { name: "replay", rows: 10, spellcheck: "false" });
    editor.value = json(c.body);
    const fresh = h("input", { type: "checkbox", name: "new-message-id", checked: true });
    const again = h("button", { type: "button" }, "Send again");
    const error = h("p", { class: "error", role: "alert" });
    again.addEventListener("click", () => {
      let body: Call["body"];
      try {
        body = JSON.parse(editor.value) as Call["body"];
      } catch (e) {
        error.textContent = `Not JSON: ${e instanceof Error ? e.message : String(e)}`;
        return;
      }
      const m = (body.request as { message?: { messageId?: string } } | null)?.message;
      if (fresh.checked && m) m.messageId = randomId();
      void run(body);
    });
    fill(wrap, field(`Request of call ${c.n} (JSON)`, editor), h("label", {}, fresh, " New messageId"), h("div", { class: "buttons" }, again), error);
    editor.focus();
  });
  wrap.append(open);
  return wrap;
}
