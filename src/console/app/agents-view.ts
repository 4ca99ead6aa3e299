import type { AgentCard, SecurityScheme } from "../../../gen/a2a/v1/a2a_pb.js";
import { cardUrls, missingFields, urlAnswers, type CardProblem } from "./card-check.js";
import { fill, h, json } from "./dom.js";
import type { FetchedCard } from "./hub-client.js";

/** Past this many agents, the cards start folded under a compact list. */
const COMPACT_AFTER = 4;

/** The Agents view: every agent the token may use, each card rendered, raw, and checked; a compact list first when there are many. */
export function agentsView(root: HTMLElement, cards: readonly FetchedCard[]): void {
  const many = cards.length > COMPACT_AFTER;
  fill(
    root,
    h("h1", { tabindex: -1 }, "Agents"),
    cards.length === 0 ? h("p", {}, "No agent is available to this token.") : null,
    many ? agentList(cards) : null,
    cards.map((f) => (many ? h("details", { class: "card-fold", id: `card-${f.entry.id}` }, h("summary", {}, f.card?.name || f.entry.id, h("small", {}, ` ${f.entry.id}`)), agentSection(f)) : agentSection(f))),
  );
}

/** One line per agent: name, id, what it does, and where to go. */
function agentList(cards: readonly FetchedCard[]): HTMLElement {
  return h(
    "div",
    { class: "scroll" },
    h(
      "table",
      { class: "agent-list" },
      h("caption", { class: "visually-hidden" }, `${cards.length} agents`),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Agent"), h("th", { scope: "col" }, "ID"), h("th", { scope: "col" }, "Description"), h("th", { scope: "col" }, "Skills"), h("th", { scope: "col" }, h("span", { class: "visually-hidden" }, "Links")))),
      h(
        "tbody",
        {},
        cards.map((f) =>
          h(
            "tr",
            { "data-agent": f.entry.id },
            h("td", {}, h("a", { href: `#/agents`, "data-fold": f.entry.id }, f.card?.name || f.entry.id)),
            h("td", {}, h("code", {}, f.entry.id)),
            h("td", { class: "preview" }, f.card?.description ?? f.error ?? ""),
            h("td", {}, String(f.card?.skills.length ?? 0)),
            h("td", {}, h("a", { href: `#/chat/${encodeURIComponent(f.entry.id)}` }, "Chat"), " · ", h("a", { href: `#/tasks/${encodeURIComponent(f.entry.id)}` }, "Tasks")),
          ),
        ),
      ),
    ),
  );
}

// A name in the compact list unfolds that agent's card and moves there.
document.addEventListener("click", (e) => {
  const id = (e.target as HTMLElement | null)?.closest?.("a[data-fold]")?.getAttribute("data-fold");
  if (!id) return;
  e.preventDefault();
  const fold = document.getElementById(`card-${id}`) as HTMLDetailsElement | null;
  if (!fold) return;
  fold.open = true;
  fold.scrollIntoView();
  fold.querySelector("summary")?.focus();
});

function agentSection(f: FetchedCard): HTMLElement {
  const problems = h("ul", { class: "problems", "aria-live": "polite" });
  const notes = h("ul", { class: "notes" });
  const status = h("p", { class: "problem-status" }, "Checking the card…");
  const section = h(
    "section",
    { class: "card", "aria-labelledby": `agent-${f.entry.id}`, "data-agent": f.entry.id },
    h("h2", { id: `agent-${f.entry.id}` }, f.card?.name || f.entry.id, h("small", {}, ` ${f.entry.id}`)),
    h("p", {}, h("a", { href: f.entry.cardUrl, rel: "noopener" }, "Card URL"), " · ", h("a", { href: `#/chat/${encodeURIComponent(f.entry.id)}` }, "Chat"), " · ", h("a", { href: `#/tasks/${encodeURIComponent(f.entry.id)}` }, "Tasks")),
    h("h3", {}, "Card problems"),
    status,
    problems,
    notes,
    f.card ? renderCard(f.card) : null,
    f.raw !== undefined ? h("details", {}, h("summary", {}, "Raw card JSON"), h("pre", { class: "raw" }, json(f.raw))) : null,
  );
  void checkCard(f).then(({ found, unchecked }) => {
    fill(notes, unchecked.map((p) => h("li", { class: "unchecked" }, h("code", {}, p.where), ` ${p.what}`)));
    fill(status, found.length === 0 ? "No problems found: every required field is present and every URL answers." : `${found.length} problem${found.length === 1 ? "" : "s"} found:`);
    status.dataset.problems = String(found.length);
    fill(problems, found.map((p) => h("li", {}, h("code", {}, p.where), ` ${p.what}`)));
  });
  return section;
}

/**
 * The card's problems, and the links that could not be checked: the
 * provider's site is for people, not for A2A clients, so when it does not
 * answer (an offline install) it is "not checked", not an error.
 */
async function checkCard(f: FetchedCard): Promise<{ found: CardProblem[]; unchecked: CardProblem[] }> {
  if (f.error) return { found: [{ where: "card", what: f.error }, ...(f.raw !== undefined ? missingFields(f.raw) : [])], unchecked: [] };
  const found = missingFields(f.raw);
  const unchecked: CardProblem[] = [];
  const urls = cardUrls(f.card!);
  const answers = await Promise.all(urls.map((u) => urlAnswers(u.url)));
  urls.forEach((u, i) => {
    if (!answers[i]) return;
    if (u.where === "provider.url") unchecked.push({ where: u.where, what: `${u.url}: not checked offline (no answer from here; it is a page for people, not an A2A endpoint)` });
    else found.push({ where: u.where, what: `${u.url} ${answers[i]}` });
  });
  return { found, unchecked };
}

function dl(rows: readonly [string, string | HTMLElement | undefined][]): HTMLElement {
  return h("dl", {}, rows.filter(([, v]) => v !== undefined && v !== "").map(([k, v]) => [h("dt", {}, k), h("dd", {}, v!)]));
}

export function renderCard(c: AgentCard): HTMLElement {
  const cap = c.capabilities;
  const yesNo = (b: boolean | undefined): string => (b ? "yes" : "no");
  return h(
    "div",
    { class: "card-body" },
    h("p", {}, c.description),
    dl([
      ["Version", c.version],
      ["Provider", c.provider ? `${c.provider.organization} (${c.provider.url})` : undefined],
      ["Documentation", c.documentationUrl],
      ["Input modes", c.defaultInputModes.join(", ")],
      ["Output modes", c.defaultOutputModes.join(", ")],
      ["Streaming", yesNo(cap?.streaming)],
      ["Push notifications", yesNo(cap?.pushNotifications)],
      ["Extended card", yesNo(cap?.extendedAgentCard)],
      ["Extensions", cap?.extensions.map((e) => `${e.uri}${e.required ? " (required)" : ""}`).join(", ")],
    ]),
    h("h3", {}, "Skills"),
    c.skills.length === 0
      ? h("p", {}, "None declared.")
      : h(
          "ul",
          { class: "skills" },
          c.skills.map((s) =>
            h(
              "li",
              {},
              h("strong", {}, s.name || s.id),
              ` — ${s.description}`,
              s.tags.length ? h("div", { class: "tags" }, s.tags.map((t) => h("span", { class: "tag" }, t))) : null,
              s.examples.length ? h("div", {}, "Examples: ", s.examples.map((e, i) => [i ? ", " : "", h("q", {}, e)])) : null,
            ),
          ),
        ),
    h("h3", {}, "Interfaces"),
    h(
      "div",
      { class: "scroll" },
      h(
        "table",
        {},
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Binding"), h("th", { scope: "col" }, "Version"), h("th", { scope: "col" }, "URL"), h("th", { scope: "col" }, "Tenant"))),
        h("tbody", {}, c.supportedInterfaces.map((i) => h("tr", {}, h("td", {}, i.protocolBinding), h("td", {}, i.protocolVersion), h("td", {}, h("code", {}, i.url)), h("td", {}, i.tenant)))),
      ),
    ),
    h("h3", {}, "Security"),
    Object.keys(c.securitySchemes).length === 0
      ? h("p", {}, "No authentication declared.")
      : h(
          "ul",
          {},
          Object.entries(c.securitySchemes).map(([name, s]) => h("li", {}, h("code", {}, name), `: ${schemeText(s)}`)),
          c.securityRequirements.map((r) => h("li", {}, `Required: ${Object.keys(r.schemes).join(" + ")}`)),
        ),
  );
}

function schemeText(s: SecurityScheme): string {
  const v = s.scheme;
  switch (v.case) {
    case "httpAuthSecurityScheme":
      return `HTTP ${v.value.scheme}${v.value.bearerFormat ? ` (${v.value.bearerFormat})` : ""}${v.value.description ? ` — ${v.value.description}` : ""}`;
    case "apiKeySecurityScheme":
      return `API key in ${v.value.location} "${v.value.name}"`;
    case "oauth2SecurityScheme":
      return `OAuth 2.0 (${v.value.flows?.flow.case ?? "no flow"})`;
    case "openIdConnectSecurityScheme":
      return `OpenID Connect (${v.value.openIdConnectUrl})`;
    case "mtlsSecurityScheme":
      return "mutual TLS";
    default:
      return "unknown scheme";
  }
}
