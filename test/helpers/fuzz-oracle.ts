import { fromJson, type DescMessage, type JsonValue } from "@bufbuild/protobuf";
import { EmptySchema } from "@bufbuild/protobuf/wkt";
import {
  AgentCardSchema,
  ListTaskPushNotificationConfigsResponseSchema,
  ListTasksResponseSchema,
  SendMessageResponseSchema,
  StreamResponseSchema,
  TaskPushNotificationConfigSchema,
  TaskSchema,
} from "../../gen/a2a/v1/a2a_pb.js";
import type { RpcCase } from "./fuzz-arbitraries.js";
import { bodyPreview, type RawReply } from "./fuzz-http.js";
import { FUZZ_ROUTES, routeKey, type RestCase } from "./fuzz-rest-cases.js";
import { sseMessages, type SseMessage } from "./sse.js";

/** The limits the hub under test was started with. */
export interface FuzzLimits {
  readonly maxBodyBytes: number;
  readonly maxJsonDepth: number;
}

/** What the judge of one answer found: its problems, and a short name of the outcome for the statistics. */
export interface Verdict {
  readonly outcome: string;
  readonly problems: string[];
}

// ---------------------------------------------------------------------------
// Shared

/** A body as the server reads it: UTF-8 with replacement characters, a leading BOM dropped. */
function bodyText(body: string | Uint8Array): { bytes: number; text: string } {
  const buf = typeof body === "string" ? Buffer.from(body, "utf8") : Buffer.from(body);
  return { bytes: buf.length, text: buf.toString("utf8").replace(/^\uFEFF/, "") };
}

/**
 * How deeply a JSON text nests arrays and objects. The text, not the parsed
 * value: a repeated key's discarded value counts too, as it is read.
 */
function textDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === "[" || ch === "{") max = Math.max(max, ++depth);
    else if ((ch === "]" || ch === "}") && depth > 0) depth--;
  }
  return max;
}

/** The outcome of parsing a body the way a JSON facade must before answering it. */
type Parsed = { readonly kind: "tooLarge" } | { readonly kind: "unparsable" } | { readonly kind: "json"; readonly value: unknown; readonly deep: boolean };

function parseBody(body: string | Uint8Array, limits: FuzzLimits): Parsed {
  const { bytes, text } = bodyText(body);
  if (bytes > limits.maxBodyBytes) return { kind: "tooLarge" };
  const deep = textDepth(text) > limits.maxJsonDepth;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: "unparsable" };
  }
  return { kind: "json", value, deep };
}

/** Internal details must never reach a client (§3.3.2): stack frames, file paths. */
function leaksInternals(message: string): boolean {
  return /\bat .+:\d+:\d+/.test(message) || /node:internal|node_modules|\/work\/|\.ts:\d+/.test(message);
}

/** A problem when `json` does not decode strictly as `schema` (no unknown field, right types). */
function protoJsonProblem(schema: DescMessage, json: unknown): string | undefined {
  try {
    fromJson(schema, json as JsonValue);
    return undefined;
  } catch (e) {
    return `the result is not a valid ${schema.typeName} in ProtoJSON: ${e instanceof Error ? e.message : String(e)}`;
  }
}

async function sseEvents(body: Buffer): Promise<SseMessage[]> {
  const out: SseMessage[] = [];
  for await (const e of sseMessages(new Blob([new Uint8Array(body)]).stream())) if (e.data !== undefined) out.push(e);
  return out;
}

function parseJson(body: Buffer): { ok: true; value: any } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(body.toString("utf8")) };
  } catch {
    return { ok: false };
  }
}

// ---------------------------------------------------------------------------
// JSON-RPC

/** JSON-RPC 2.0 §5.1 and A2A §9.5: the only codes an answer may carry. */
const RPC_CODES = new Set([-32700, -32600, -32601, -32602, -32603, -32000, -32001, -32002, -32003, -32004, -32005, -32006, -32007, -32008, -32009]);
const INTERNAL = -32603;

const STREAM_METHODS = new Set(["SendStreamingMessage", "SubscribeToTask", "message/stream", "tasks/resubscribe"]);

/** §9.4: the v1.0 methods and the message their result is, in ProtoJSON (v0.3 results are checked for shape only). */
const V1_RESULTS: Readonly<Record<string, DescMessage>> = {
  SendMessage: SendMessageResponseSchema,
  GetTask: TaskSchema,
  ListTasks: ListTasksResponseSchema,
  CancelTask: TaskSchema,
  CreateTaskPushNotificationConfig: TaskPushNotificationConfigSchema,
  GetTaskPushNotificationConfig: TaskPushNotificationConfigSchema,
  ListTaskPushNotificationConfigs: ListTaskPushNotificationConfigsResponseSchema,
  DeleteTaskPushNotificationConfig: EmptySchema,
  GetExtendedAgentCard: AgentCardSchema,
};
const V03_METHODS = new Set([
  "message/send", "message/stream", "tasks/get", "tasks/cancel", "tasks/resubscribe", "tasks/pushNotificationConfig/set",
  "tasks/pushNotificationConfig/get", "tasks/pushNotificationConfig/list", "tasks/pushNotificationConfig/delete", "agent/getAuthenticatedExtendedCard",
]);
const isMethod = (m: string): boolean => m in V1_RESULTS || STREAM_METHODS.has(m) || V03_METHODS.has(m);

/** What one request object is, by JSON-RPC 2.0 §4 (independently of the server's reading of it). */
interface RequestShape {
  readonly valid: boolean;
  readonly notification: boolean;
  /** The id an answer must echo: the request's when it is a valid id, else null. */
  readonly id: string | number | null;
  readonly method?: string;
}

function shapeOf(v: unknown): RequestShape {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return { valid: false, notification: false, id: null };
  const o = v as Record<string, unknown>;
  const hasId = Object.prototype.hasOwnProperty.call(o, "id");
  const idOk = o.id === null || typeof o.id === "string" || (typeof o.id === "number" && Number.isFinite(o.id));
  const id = hasId && idOk ? (o.id as string | number | null) : null;
  if (hasId && !idOk) return { valid: false, notification: false, id: null };
  if (o.jsonrpc !== "2.0" || typeof o.method !== "string") return { valid: false, notification: false, id };
  // §4: params, when present, is an object or an array; otherwise not even a notification is valid.
  if ("params" in o && (typeof o.params !== "object" || o.params === null)) return { valid: false, notification: false, id };
  return { valid: true, notification: !hasId, id, method: o.method };
}

/** §3.6.2: whether the A2A-Version header names a version the endpoint does not speak (then every answer is -32009, id null). */
function versionRefused(headers: Readonly<Record<string, string>>): boolean {
  const v = headers["a2a-version"]?.trim() ?? "";
  return v !== "" && !/^(1(\.0(\.\d+)?)?|0\.3(\.\d+)?)$/.test(v);
}

/** §9.1: whether the request declares a body that is not JSON (then the answer is -32005, id null, unread). */
function notJson(headers: Readonly<Record<string, string>>, body: string | Uint8Array): boolean {
  const type = headers["content-type"]?.split(";")[0]!.trim().toLowerCase() ?? "";
  return type !== "" && type !== "application/json" && !/^application\/[^/\s]+\+json$/.test(type) && bodyText(body).bytes > 0;
}

/** Problems with one response object; `expected` is the request it answers (undefined: it can only be an error with id null). */
function checkResponse(r: any, expected: RequestShape | undefined, where: string, codes: number[]): string[] {
  const problems: string[] = [];
  if (r === null || typeof r !== "object" || Array.isArray(r)) return [`${where}: not a response object: ${JSON.stringify(r)?.slice(0, 200)}`];
  if (r.jsonrpc !== "2.0") problems.push(`${where}: jsonrpc is ${JSON.stringify(r.jsonrpc)}`);
  const keys = Object.keys(r).sort().join(",");
  if (keys !== "error,id,jsonrpc" && keys !== "id,jsonrpc,result") problems.push(`${where}: members are ${keys}, not exactly one of result and error beside jsonrpc and id`);
  if ("error" in r) {
    const e = r.error;
    if (e === null || typeof e !== "object") return [...problems, `${where}: error is not an object`];
    if (!Number.isInteger(e.code) || !RPC_CODES.has(e.code)) problems.push(`${where}: error code ${JSON.stringify(e.code)} is not one JSON-RPC or A2A defines`);
    else codes.push(e.code);
    if (typeof e.message !== "string" || e.message === "") problems.push(`${where}: error message is missing`);
    else if (leaksInternals(e.message)) problems.push(`${where}: error message leaks internals: ${e.message.slice(0, 300)}`);
    if (e.code === INTERNAL) problems.push(`${where}: -32603 Internal error: the server failed inside on client input (${e.message})`);
    if (r.id !== null && r.id !== expected?.id) problems.push(`${where}: error id ${JSON.stringify(r.id)} is neither the request's (${JSON.stringify(expected?.id)}) nor null`);
  } else if ("result" in r) {
    if (!expected?.valid || expected.notification) problems.push(`${where}: a result for a request that is ${expected ? "a notification" : "not a request"}`);
    else {
      if (r.id !== expected.id) problems.push(`${where}: result id ${JSON.stringify(r.id)} is not the request's ${JSON.stringify(expected.id)}`);
      const schema = V1_RESULTS[expected.method!];
      const bad = schema && protoJsonProblem(schema, r.result);
      if (bad) problems.push(`${where}: ${bad}`);
    }
  }
  return problems;
}

/** Problems with a single (non-batch) JSON answer expected to be one error with id null and `code`. */
function expectError(json: any, code: number, mention: string | undefined, codes: number[]): string[] {
  const problems = checkResponse(json, undefined, "answer", codes);
  if (problems.length > 0) return problems;
  if (json.error?.code !== code) problems.push(`expected error ${code}, got ${JSON.stringify(json).slice(0, 300)}`);
  else if (mention && !json.error.message.includes(mention)) problems.push(`the ${code} message does not name ${mention}: ${json.error.message}`);
  return problems;
}

/**
 * Judges one JSON-RPC answer (§9, JSON-RPC 2.0 §5-§6): HTTP 200 with one
 * response object, an array for a batch, 204 only when nothing was asked
 * that needs an answer, or an event stream of responses for a streaming
 * method; ids echoed, codes from the allowed set, no internals, and every
 * v1.0 result valid ProtoJSON of its message.
 */
export async function judgeJsonRpc(c: RpcCase, reply: RawReply, limits: FuzzLimits): Promise<Verdict> {
  const codes: number[] = [];
  const answer = `\n    answer: HTTP ${reply.status} ${reply.type} ${bodyPreview(reply.body.toString("utf8"))}`;
  const problems = (await judgeRpc(c, reply, limits, codes)).map((p) => p + answer);
  const batch = reply.body[0] === 0x5b;
  const outcome =
    reply.status === 204 ? "204" : reply.type === "text/event-stream" ? "stream" : batch ? "batch" : codes.length > 0 ? `${codes[0]}` : reply.status === 200 ? "result" : `${reply.status}`;
  return { outcome, problems };
}

async function judgeRpc(c: RpcCase, reply: RawReply, limits: FuzzLimits, codes: number[]): Promise<string[]> {
  if (reply.status !== 200 && reply.status !== 204) return [`HTTP ${reply.status} (${reply.type}): ${reply.body.toString("utf8").slice(0, 300)}`];
  const parsed = parseBody(c.body, limits);
  const refused = versionRefused(c.headers);
  const unreadable = !refused && notJson(c.headers, c.body);
  const single = parsed.kind === "json" && !Array.isArray(parsed.value) ? shapeOf(parsed.value) : undefined;

  if (reply.status === 204) {
    if (reply.body.length > 0) return ["204 with a body"];
    const batch = parsed.kind === "json" && Array.isArray(parsed.value) ? parsed.value : undefined;
    const onlyNotifications = single?.valid === true ? single.notification : batch !== undefined && batch.length > 0 && batch.length <= 100 && batch.every((v) => shapeOf(v).notification);
    return !refused && !unreadable && onlyNotifications ? [] : ["204 (no answer) to a request that needs one"];
  }

  if (reply.type === "text/event-stream") {
    if (refused || unreadable || !single?.valid || single.notification || !STREAM_METHODS.has(single.method!)) return ["an event stream answers a request that is not a streaming call"];
    let events: SseMessage[];
    try {
      events = await sseEvents(reply.body);
    } catch (e) {
      return [`an event's data is not JSON: ${e instanceof Error ? e.message : String(e)}`];
    }
    // A resumed subscription (Last-Event-ID) of a finished task that missed nothing has nothing to send.
    const resumed = (single.method === "SubscribeToTask" || single.method === "tasks/resubscribe") && /^\s*\d+\s*$/.test(c.headers["last-event-id"] ?? "");
    if (events.length === 0 && !resumed) return ["an event stream without events"];
    const problems: string[] = [];
    events.forEach((e, i) => {
      const where = `event ${i}`;
      problems.push(...checkResponse(e.data, single, where, codes));
      if (e.data?.id !== single.id) problems.push(`${where}: id ${JSON.stringify(e.data?.id)} is not the request's`);
      if (e.data && "error" in e.data && i < events.length - 1) problems.push(`${where}: an error event before the last`);
      const v1 = single.method === "SendStreamingMessage" || single.method === "SubscribeToTask";
      const bad = v1 && e.data && "result" in e.data ? protoJsonProblem(StreamResponseSchema, e.data.result) : undefined;
      if (bad) problems.push(`${where}: ${bad}`);
    });
    return problems;
  }

  if (reply.type !== "application/json") return [`Content-Type ${reply.type} on a JSON-RPC answer`];
  const body = parseJson(reply.body);
  if (!body.ok) return [`the answer is not JSON: ${reply.body.toString("utf8").slice(0, 200)}`];
  const json = body.value;

  if (refused) return expectError(json, -32009, undefined, codes);
  if (unreadable) return expectError(json, -32005, undefined, codes);
  switch (parsed.kind) {
    case "tooLarge":
      return expectError(json, -32600, `${limits.maxBodyBytes}`, codes);
    case "unparsable":
      // Not JSON is -32700 however deep it nests (JSON-RPC 2.0 §5.1).
      return expectError(json, -32700, undefined, codes);
  }
  const value = parsed.value;
  if (Array.isArray(value)) {
    if (value.length === 0 || value.length > 100) return expectError(json, -32600, undefined, codes);
    if (!Array.isArray(json)) return [`a batch answered with ${JSON.stringify(json).slice(0, 200)}, not an array`];
    const shapes = value.map(shapeOf);
    const answered = shapes.filter((s) => !(s.valid && s.notification)).length;
    const problems: string[] = [];
    if (json.length !== answered) problems.push(`a batch of ${value.length} with ${answered} needing answers got ${json.length}`);
    json.forEach((r: any, i: number) => {
      // Answers are matched by id (JSON-RPC 2.0 §6); when ids repeat, a result must match a valid request among them.
      const candidates = shapes.filter((s) => !(s.valid && s.notification) && s.id === r?.id);
      if (candidates.length === 0 && r?.id !== null) problems.push(`batch answer ${i}: id ${JSON.stringify(r?.id)} is not one of the batch's`);
      const isResult = r !== null && typeof r === "object" && "result" in r;
      const judged = (candidates.length > 0 ? candidates : [{ valid: false, notification: false, id: null }]).map((s) => {
        const found = checkResponse(r, s, `batch answer ${i}`, []);
        if (isResult && s.method && STREAM_METHODS.has(s.method)) found.push(`batch answer ${i}: a streaming method answered with a result inside a batch`);
        return found;
      });
      // Right for one of the requests with its id is right: which one it answers is not visible.
      const best = judged.find((p) => p.length === 0) ?? judged[0]!;
      problems.push(...best);
      checkResponse(r, undefined, "", codes);
    });
    return problems;
  }
  if (Array.isArray(json)) return ["a single request answered with an array"];
  const problems = checkResponse(json, single, "answer", codes);
  if (problems.length > 0) return problems;
  if (parsed.deep) {
    // Past the nesting limit a request is refused (-32600 naming the limit) with the id its envelope shows.
    if (json.error?.code !== -32600 || !String(json.error.message).includes("limits.maxJsonDepth")) problems.push(`a request past the depth limit answered ${JSON.stringify(json).slice(0, 200)}`);
    if (single!.valid && single!.notification) problems.push("a notification was answered");
  } else if (!single!.valid) {
    if (json.error?.code !== -32600) problems.push(`an invalid request object answered ${JSON.stringify(json).slice(0, 200)}, not -32600`);
  } else if (!isMethod(single!.method!)) {
    if (json.error?.code !== -32601) problems.push(`an unknown method answered ${JSON.stringify(json).slice(0, 200)}, not -32601`);
  } else if (single!.notification) {
    problems.push("a notification was answered");
  } else if (STREAM_METHODS.has(single!.method!) && "result" in json) {
    problems.push("a streaming method answered with a plain result instead of an event stream");
  }
  return problems;
}

// ---------------------------------------------------------------------------
// REST

const ROUTE_RESPONSES = new Map(FUZZ_ROUTES.map((r) => [routeKey(r), r.response]));

/**
 * Judges one REST answer (§11.4-§11.7): a 200 whose body is valid
 * ProtoJSON of the route's message as application/a2a+json, or an SSE
 * stream of StreamResponse; otherwise an error status with the §11.6
 * google.rpc.Status body whose code is the status, or RFC 9457 problem
 * details when Accept asked for them. A 405 lists Allow.
 */
export async function judgeRest(c: RestCase, reply: RawReply): Promise<Verdict> {
  const answer = `\n    answer: HTTP ${reply.status} ${reply.type} ${bodyPreview(reply.body.toString("utf8"))}`;
  const problems = (await judgeRestReply(c, reply)).map((p) => p + answer);
  const status = reply.status;
  const outcome = parserRefusal(c, reply) ? `${status} from the HTTP parser` : status === 200 && reply.type === "text/event-stream" ? "200 stream" : `${status}`;
  return { outcome, problems };
}

async function judgeRestReply(c: RestCase, reply: RawReply): Promise<string[]> {
  const status = reply.status;
  if (c.method === "HEAD") return status >= 500 ? [`HEAD answered ${status}`] : [];
  if (parserRefusal(c, reply)) return [];
  if (status >= 200 && status < 300) {
    if (status !== 200) return [`success status ${status}; §11.4 answers 200`];
    if (reply.type === "text/event-stream") {
      let events: SseMessage[];
      try {
        events = await sseEvents(reply.body);
      } catch (e) {
        return [`an event's data is not JSON: ${e instanceof Error ? e.message : String(e)}`];
      }
      const resumed = c.route?.endsWith(":subscribe") === true && /^\s*\d+\s*$/.test(c.headers["last-event-id"] ?? "");
      if (events.length === 0 && !resumed) return ["an event stream without events"];
      return events.flatMap((e, i) => {
        if (e.event === "error") return i === events.length - 1 ? statusBodyProblems(e.data, undefined).map((p) => `error event: ${p}`) : [`event ${i}: an error event before the last`];
        const bad = protoJsonProblem(StreamResponseSchema, e.data);
        return bad ? [`event ${i}: ${bad}`] : [];
      });
    }
    if (reply.type !== "application/a2a+json" && reply.type !== "application/json") return [`200 with Content-Type ${reply.type}, not a JSON type`];
    const body = parseJson(reply.body);
    if (!body.ok || body.value === null || typeof body.value !== "object" || Array.isArray(body.value)) return [`200 whose body is not a JSON object: ${reply.body.toString("utf8").slice(0, 200)}`];
    const schema = c.route?.startsWith(`${c.method} `) ? ROUTE_RESPONSES.get(c.route) : undefined;
    const bad = schema && protoJsonProblem(schema, body.value);
    return bad ? [bad] : [];
  }
  if (status < 400) return [`unexpected status ${status}`];
  const problems: string[] = [];
  if (status >= 500) problems.push(`HTTP ${status}: the server failed inside on client input`);
  if (status === 405 && !reply.headers.allow) problems.push("405 without Allow");
  const body = parseJson(reply.body);
  if (!body.ok) return [...problems, `HTTP ${status} whose body is not JSON: ${reply.body.toString("utf8").slice(0, 200)}`];
  if (reply.type === "application/problem+json") {
    if (!(c.headers.accept ?? "").includes("application/problem+json")) problems.push("problem details the client did not ask for");
    const p = body.value;
    if (typeof p?.type !== "string" || typeof p?.title !== "string" || p?.status !== status || typeof p?.detail !== "string") problems.push(`malformed problem details: ${reply.body.toString("utf8").slice(0, 200)}`);
    else if (leaksInternals(p.detail)) problems.push(`problem detail leaks internals: ${p.detail.slice(0, 300)}`);
    return problems;
  }
  if (reply.type !== "application/a2a+json" && reply.type !== "application/json") problems.push(`error with Content-Type ${reply.type}`);
  return [...problems, ...statusBodyProblems(body.value, status)];
}

/**
 * Node's HTTP parser answers a request line it cannot take before any
 * route runs, with no body: 400 for a byte outside ASCII in the target,
 * 431 for a target past its 16 KiB header limit.
 */
function parserRefusal(c: RestCase, reply: RawReply): boolean {
  if (reply.body.length > 0 || reply.type !== "") return false;
  if (reply.status === 431) return c.target.length > 16_000;
  return reply.status === 400 && /[^\x21-\x7e]/.test(c.target);
}

/** §11.6: {"error":{"code","status","message","details"?}}, code the HTTP status when there is one. */
function statusBodyProblems(v: any, status: number | undefined): string[] {
  const e = v?.error;
  if (e === null || typeof e !== "object") return [`not a google.rpc.Status body: ${JSON.stringify(v)?.slice(0, 200)}`];
  const problems: string[] = [];
  if (!Number.isInteger(e.code) || (status !== undefined && e.code !== status)) problems.push(`error.code ${JSON.stringify(e.code)} is not the HTTP status ${status}`);
  if (typeof e.status !== "string" || !/^[A-Z_]+$/.test(e.status)) problems.push(`error.status ${JSON.stringify(e.status)} is not a google.rpc.Code name`);
  if (typeof e.message !== "string") problems.push("error.message is missing");
  else if (leaksInternals(e.message)) problems.push(`error.message leaks internals: ${e.message.slice(0, 300)}`);
  if (e.details !== undefined && !Array.isArray(e.details)) problems.push("error.details is not an array");
  return problems;
}
