import { fromJson, toJson, type JsonValue } from "@bufbuild/protobuf";
import {
  AgentCardSchema,
  CancelTaskRequestSchema,
  GetTaskRequestSchema,
  ListTasksRequestSchema,
  ListTasksResponseSchema,
  SendMessageRequestSchema,
  SendMessageResponseSchema,
  StreamResponseSchema,
  TaskSchema,
  type AgentCard,
} from "../../../gen/a2a/v1/a2a_pb.js";
import { HTTP_FAILURES, httpFailureBody, readBody, sendJson, writeHead, type HttpRequest, type HttpResponse } from "../../bindings/http/index.js";
import { A2AClient, bindingOf, cardUrlsOf, cardVerifier, grpcBaseUrl, parseAgentCard, type BindingName } from "../../client/index.js";
import { guardedLookup, pushUrlRefusal, type AddressPolicy } from "../../push/index.js";
import type { RecordedExchange } from "./recorded-exchange.js";
import { guardedFetch } from "./guarded-fetch.js";
import { grpcRecorder } from "./grpc-recorder.js";

/** Where the inspector's two calls live, under the console. */
export const INSPECT_CARD_PATH = "/console/api/card";
export const INSPECT_CALL_PATH = "/console/api/call";

/** What the inspector needs from the hub. */
export interface InspectOptions {
  /** The outbound address policy (the push webhook one): no private addresses unless the operator allows them. */
  readonly policy: AddressPolicy;
  /** Counts and logs (rate-limited) an address the guard refused; the reason only, never the token. */
  readonly onRefusal?: (reason: string, address?: string) => void;
  /** Largest card or answer read from an inspected agent; default 4 MiB. */
  readonly maxBytes?: number;
  /** Deadline of a card fetch or a unary call, and of a stream's first event; default 15 s. */
  readonly timeoutMs?: number;
}

const MAX_REQUEST_BYTES = 1024 * 1024;

/** What the browser asks: an agent by URL, the token it typed for that agent, and for a call the operation. */
interface InspectRequest {
  url?: string;
  token?: string;
  /** A JWKS URL the user trusts for the card's signature; else the key its own jku names is tried. */
  jwksUrl?: string;
  /** The card as the inspector read it, and which of its interfaces to use. */
  card?: JsonValue;
  interfaceIndex?: number;
  operation?: "send" | "stream" | "get" | "cancel" | "list";
  request?: JsonValue;
}

const REQUESTS = { send: SendMessageRequestSchema, stream: SendMessageRequestSchema, get: GetTaskRequestSchema, cancel: CancelTaskRequestSchema, list: ListTasksRequestSchema } as const;

/**
 * The console's inspector of any A2A agent by URL, server-side: the hub's
 * own client reads the card and makes the calls, through the push SSRF
 * guard, and every exchange is reported for the raw pane. The token typed
 * for the agent is used for that one call and never kept or logged.
 * Answers NDJSON: `{"exchange"}` lines as they happen, then the outcome.
 */
export function createInspectRoute(options: InspectOptions): (req: HttpRequest, res: HttpResponse, path: string) => Promise<void> {
  const maxBytes = options.maxBytes ?? 4 * 1024 * 1024;
  const timeoutMs = options.timeoutMs ?? 15_000;
  return async (req, res, path) => {
    if (req.method !== "POST") return sendJson(res, HTTP_FAILURES.methodNotAllowed.httpStatus, httpFailureBody("methodNotAllowed", `${path} takes POST`), { allow: "POST" });
    let body: InspectRequest;
    try {
      body = JSON.parse((await readBody(req, MAX_REQUEST_BYTES)).toString("utf8")) as InspectRequest;
      if (typeof body.url !== "string" || !body.url) throw new Error("url is required");
    } catch (e) {
      return sendJson(res, 400, { error: { code: 400, status: "INVALID_ARGUMENT", message: `not an inspector request: ${e instanceof Error ? e.message : String(e)}` } });
    }
    writeHead(res, 200, { "content-type": "application/x-ndjson; charset=utf-8", "cache-control": "no-store", "x-content-type-options": "nosniff" });
    const line = (v: unknown): void => {
      if (!res.writableEnded) (res as import("node:http").ServerResponse).write(`${JSON.stringify(v)}\n`);
    };
    let ids = 0;
    // Exchanges whose end is not reported yet: a stream's body ends just after the client read its last event.
    const open = new Set<number>();
    let settle: (() => void) | undefined;
    const onExchange = (e: RecordedExchange, done: boolean): void => {
      line({ exchange: e });
      if (done) open.delete(e.id);
      else open.add(e.id);
      if (open.size === 0) settle?.();
    };
    const fetch = guardedFetch({ policy: options.policy, maxBytes, timeoutMs, nextId: () => ++ids, onExchange });
    const abort = new AbortController();
    res.once("close", () => abort.abort());
    try {
      if (path === INSPECT_CARD_PATH) line(await inspectCard(body, fetch, abort.signal));
      else await call(body, { fetch, policy: options.policy, timeoutMs, signal: abort.signal, grpc: grpcRecorder(onExchange, () => ++ids), line });
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      if (/refused address/.test(message)) options.onRefusal?.("console.inspect.address", req.socket?.remoteAddress);
      line({ error: { name: (e as { a2a?: string }).a2a ?? (e as Error).name ?? "Error", message } });
    }
    if (open.size > 0) await new Promise<void>((resolve) => ((settle = resolve), setTimeout(resolve, 2000).unref()));
    res.end();
  };
}

/** Reads the card at a base or card URL, as served (raw) and as the v1.0 AgentCard, and checks its signature. */
async function inspectCard(body: InspectRequest, fetch: typeof globalThis.fetch, signal: AbortSignal): Promise<unknown> {
  const candidates = cardUrlsOf(body.url!);
  const headers: Record<string, string> = { accept: "application/json", "a2a-version": "1.0" };
  if (body.token) headers.authorization = `Bearer ${body.token}`;
  let lastStatus = 0;
  for (const cardUrl of candidates) {
    const res = await fetch(cardUrl, { headers, signal });
    lastStatus = res.status;
    if (res.status === 404) continue;
    if (!res.ok) throw new Error(`the card URL ${cardUrl} answered HTTP ${res.status}`);
    const raw = JSON.parse(await res.text()) as JsonValue;
    const version = Array.isArray((raw as { supportedInterfaces?: unknown }).supportedInterfaces) ? "1.0" : "0.3";
    const card = parseAgentCard(raw);
    return { card: { cardUrl, version, raw, card: toJson(AgentCardSchema, card), signature: await signatureOf(card, body.jwksUrl, fetch, signal) } };
  }
  throw new Error(`no agent card at ${candidates.join(" or ")} (HTTP ${lastStatus})`);
}

/**
 * §8.4.3: a signed card is verified with the keys of a JWKS URL the user
 * trusts, else with those its own `jku` names (which proves the card is
 * intact, not who signed it; said so). Keys are read through the guard.
 */
async function signatureOf(card: AgentCard, jwksUrl: string | undefined, fetch: typeof globalThis.fetch, signal: AbortSignal): Promise<{ state: string; detail: string }> {
  if (card.signatures.length === 0) return { state: "unsigned", detail: "The card carries no signature." };
  let url = jwksUrl;
  if (!url) {
    try {
      const header = JSON.parse(Buffer.from(card.signatures[0]!.protected, "base64url").toString("utf8")) as { jku?: string };
      url = header.jku;
    } catch {
      /* unreadable header: reported by the verifier below */
    }
  }
  if (!url) return { state: "unverified", detail: "Signed, but no JWKS URL is given and the signature names none (jku)." };
  try {
    const res = await fetch(url, { headers: { accept: "application/json" }, signal });
    if (!res.ok) return { state: "unverified", detail: `The keys at ${url} answered HTTP ${res.status}.` };
    const verified = await cardVerifier({ keys: JSON.parse(await res.text()) })(card);
    const whose = jwksUrl ? "the JWKS URL you trust" : "the key its own jku names (intact, but that does not say who signed it)";
    return { state: "verified", detail: `Signature by kid ${verified.kid} (${verified.alg}) verifies with ${whose}: ${url}.` };
  } catch (e) {
    return { state: "failed", detail: e instanceof Error ? e.message : String(e) };
  }
}

interface CallDeps {
  readonly fetch: typeof globalThis.fetch;
  readonly policy: AddressPolicy;
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
  readonly grpc: ReturnType<typeof grpcRecorder>;
  readonly line: (v: unknown) => void;
}

/** One A2A operation on the chosen interface of the card the inspector read, with the hub's own client. */
async function call(body: InspectRequest, deps: CallDeps): Promise<void> {
  const op = body.operation;
  if (!op || !(op in REQUESTS)) throw new Error(`operation must be one of ${Object.keys(REQUESTS).join(", ")}`);
  const full = parseAgentCard(body.card);
  const chosen = full.supportedInterfaces[body.interfaceIndex ?? 0];
  if (!chosen) throw new Error(`the card has no interface ${body.interfaceIndex}`);
  const binding = bindingOf(chosen.protocolBinding) as BindingName | undefined;
  if (!binding) throw new Error(`the hub's client does not speak ${chosen.protocolBinding}`);
  if (binding === "grpc") {
    // A connection to an IP literal is never looked up, so the guard's lookup would not see it: checked here.
    const why = await pushUrlRefusal(grpcBaseUrl(chosen.url), deps.policy);
    if (why) throw new Error(`refused address: ${why}`);
  }
  const card = { ...full, supportedInterfaces: [chosen] } as AgentCard;
  const client = A2AClient.fromCard(card, { token: body.token || undefined, bindings: [binding], fetch: deps.fetch, grpc: { lookup: guardedLookup(deps.policy), interceptors: [deps.grpc] }, timeoutMs: deps.timeoutMs });
  const callOptions = { signal: deps.signal };
  try {
    const req = fromJson(REQUESTS[op], body.request ?? {}, { ignoreUnknownFields: false }) as never;
    deps.line({ interface: { binding: chosen.protocolBinding, version: chosen.protocolVersion, url: chosen.url } });
    if (op === "stream") {
      for await (const ev of client.stream(req, callOptions)) deps.line({ event: toJson(StreamResponseSchema, ev) });
    } else if (op === "send") deps.line({ result: toJson(SendMessageResponseSchema, await client.send(req, callOptions)) });
    else if (op === "list") deps.line({ result: toJson(ListTasksResponseSchema, await client.list(req, callOptions)) });
    else deps.line({ result: toJson(TaskSchema, op === "get" ? await client.get(req, callOptions) : await client.cancel(req, callOptions)) });
  } finally {
    client.close();
  }
}
