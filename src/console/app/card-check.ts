import type { AgentCard } from "../../../gen/a2a/v1/a2a_pb.js";

/** One thing wrong with a card. */
export interface CardProblem {
  readonly where: string;
  readonly what: string;
}

/**
 * §4.4.1: the fields a v1.0 AgentCard must carry, checked on the raw JSON
 * (a parsed message would fill defaults and hide what is missing).
 */
export function missingFields(raw: unknown): CardProblem[] {
  const out: CardProblem[] = [];
  if (!raw || typeof raw !== "object") return [{ where: "card", what: "is not a JSON object" }];
  const c = raw as Record<string, unknown>;
  const need = (obj: Record<string, unknown>, key: string, where: string, kind: "string" | "array" | "object"): void => {
    const v = obj[key];
    const ok = kind === "array" ? Array.isArray(v) && v.length > 0 : kind === "object" ? !!v && typeof v === "object" : typeof v === "string" && v !== "";
    if (!ok) out.push({ where: `${where}${key}`, what: kind === "array" ? "is missing or empty" : "is missing" });
  };
  for (const k of ["name", "description", "version"]) need(c, k, "", "string");
  need(c, "supportedInterfaces", "", "array");
  need(c, "capabilities", "", "object");
  need(c, "defaultInputModes", "", "array");
  need(c, "defaultOutputModes", "", "array");
  need(c, "skills", "", "array");
  (Array.isArray(c.supportedInterfaces) ? c.supportedInterfaces : []).forEach((i: Record<string, unknown>, n) => {
    for (const k of ["url", "protocolBinding", "protocolVersion"]) need(i ?? {}, k, `supportedInterfaces[${n}].`, "string");
  });
  (Array.isArray(c.skills) ? c.skills : []).forEach((s: Record<string, unknown>, n) => {
    for (const k of ["id", "name", "description"]) need(s ?? {}, k, `skills[${n}].`, "string");
    need(s ?? {}, "tags", `skills[${n}].`, "array");
  });
  return out;
}

/** The URLs a card points at, each with where in the card it is. */
export function cardUrls(card: AgentCard): { where: string; url: string }[] {
  const out: { where: string; url: string }[] = [];
  card.supportedInterfaces.forEach((i, n) => {
    // gRPC URLs are not fetchable from a page; the HTTP bindings are.
    if (i.protocolBinding !== "GRPC") out.push({ where: `supportedInterfaces[${n}].url (${i.protocolBinding})`, url: i.url });
  });
  if (card.documentationUrl) out.push({ where: "documentationUrl", url: card.documentationUrl });
  if (card.iconUrl) out.push({ where: "iconUrl", url: card.iconUrl });
  if (card.provider?.url) out.push({ where: "provider.url", url: card.provider.url });
  return out;
}

/**
 * Whether a URL answers at all: any HTTP answer counts (a JSON-RPC endpoint
 * answers a GET with an error, and that is fine); a network failure, a
 * refused connection or no answer in `timeoutMs` does not. Cross-origin
 * URLs are probed opaquely (no-cors), so their content stays unread.
 */
export async function urlAnswers(url: string, timeoutMs = 5000): Promise<string | undefined> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return "is not a valid URL";
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") return `uses ${u.protocol}, which a browser cannot check`;
  try {
    await fetch(u, { mode: u.origin === location.origin ? "same-origin" : "no-cors", cache: "no-store", signal: AbortSignal.timeout(timeoutMs), credentials: "omit" });
    return undefined;
  } catch (e) {
    return `does not answer (${e instanceof Error ? e.name : "error"})`;
  }
}

/**
 * The fields an A2A v0.3 AgentCard must carry (its JSON schema's required
 * list), checked on the raw JSON as served.
 */
export function missingFieldsV03(raw: unknown): CardProblem[] {
  if (!raw || typeof raw !== "object") return [{ where: "card", what: "is not a JSON object" }];
  const c = raw as Record<string, unknown>;
  const out: CardProblem[] = [];
  for (const k of ["name", "description", "url", "version", "protocolVersion"]) if (typeof c[k] !== "string" || c[k] === "") out.push({ where: k, what: "is missing" });
  if (!c.capabilities || typeof c.capabilities !== "object") out.push({ where: "capabilities", what: "is missing" });
  for (const k of ["defaultInputModes", "defaultOutputModes", "skills"]) if (!Array.isArray(c[k])) out.push({ where: k, what: "is missing" });
  (Array.isArray(c.skills) ? c.skills : []).forEach((s: Record<string, unknown>, n) => {
    for (const k of ["id", "name", "description"]) if (typeof s?.[k] !== "string" || s[k] === "") out.push({ where: `skills[${n}].${k}`, what: "is missing" });
    if (!Array.isArray(s?.tags)) out.push({ where: `skills[${n}].tags`, what: "is missing" });
  });
  return out;
}
