import type { AgentCard, SecurityScheme } from "../../../gen/a2a/v1/a2a_pb.js";
import { cardUrls, missingFields, urlAnswers, type CardProblem } from "./card-check.js";
import { fill, h, json } from "./dom.js";
import type { FetchedCard } from "./hub-client.js";

/** The Agents view: every agent the token may use, each card rendered, raw, and checked. */
export function agentsView(root: HTMLElement, cards: readonly FetchedCard[]): void {
  fill(
    root,
    h("h1", { tabindex: -1 }, "Agents"),
    cards.length === 0 ? h("p", {}, "No agent is available to this token.") : null,
    cards.map(agentSection),
  );
}

function agentSection(f: FetchedCard): HTMLElement {
  const problems = h("ul", { class: "problems", "aria-live": "polite" });
  const status = h("p", { class: "problem-status" }, "Checking the card…");
  const section = h(
    "section",
    { class: "card", "aria-labelledby": `agent-${f.entry.id}`, "data-agent": f.entry.id },
    h("h2", { id: `agent-${f.entry.id}` }, f.card?.name || f.entry.id, h("small", {}, ` ${f.entry.id}`)),
    h("p", {}, h("a", { href: f.entry.cardUrl, rel: "noopener" }, "Card URL"), " · ", h("a", { href: `#/chat/${encodeURIComponent(f.entry.id)}` }, "Chat"), " · ", h("a", { href: `#/tasks/${encodeURIComponent(f.entry.id)}` }, "Tasks")),
    h("h3", {}, "Card problems"),
    status,
    problems,
    f.card ? renderCard(f.card) : null,
    f.raw !== undefined ? h("details", {}, h("summary", {}, "Raw card JSON"), h("pre", { class: "raw" }, json(f.raw))) : null,
  );
  void checkCard(f).then((found) => {
    fill(status, found.length === 0 ? "No problems found: every required field is present and every URL answers." : `${found.length} problem${found.length === 1 ? "" : "s"} found:`);
    status.dataset.problems = String(found.length);
    fill(problems, found.map((p) => h("li", {}, h("code", {}, p.where), ` ${p.what}`)));
  });
  return section;
}

async function checkCard(f: FetchedCard): Promise<CardProblem[]> {
  if (f.error) return [{ where: "card", what: f.error }, ...(f.raw !== undefined ? missingFields(f.raw) : [])];
  const found = missingFields(f.raw);
  const urls = cardUrls(f.card!);
  const answers = await Promise.all(urls.map((u) => urlAnswers(u.url)));
  urls.forEach((u, i) => answers[i] && found.push({ where: u.where, what: `${u.url} ${answers[i]}` }));
  return found;
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
