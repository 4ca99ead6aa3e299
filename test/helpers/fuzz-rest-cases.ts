import fc from "fast-check";
import type { DescMessage } from "@bufbuild/protobuf";
import { EmptySchema } from "@bufbuild/protobuf/wkt";
import {
  AgentCardSchema,
  ListTaskPushNotificationConfigsResponseSchema,
  ListTasksResponseSchema,
  SendMessageResponseSchema,
  TaskPushNotificationConfigSchema,
  TaskSchema,
} from "../../gen/a2a/v1/a2a_pb.js";
import { rarely, validParams, type FuzzPool } from "./fuzz-arbitraries.js";
import { jsonText, longString, mutated, nested, nestingDepth, withDuplicateKeys, withInvalidUtf8, type Doc } from "./fuzz-json.js";

/** One route of §11.3 as the fuzzer sees it: what a 200 must decode as, or that it streams. */
export interface FuzzRoute {
  readonly method: "GET" | "POST" | "DELETE";
  readonly template: string;
  /** The ProtoJSON message of a 200 answer; undefined for an SSE route (§11.7: each event a StreamResponse). */
  readonly response?: DescMessage;
  /** The JSON-RPC v1.0 method whose valid params make a valid body (POST routes). */
  readonly bodyOf?: string;
  /** §11.5 query parameters of the request message (GET and DELETE routes). */
  readonly query?: readonly string[];
}

/** §11.3: the routes, written out here rather than read from the server, so that the oracle does not share its table. */
export const FUZZ_ROUTES: readonly FuzzRoute[] = [
  { method: "POST", template: "/message:send", response: SendMessageResponseSchema, bodyOf: "SendMessage" },
  { method: "POST", template: "/message:stream", bodyOf: "SendStreamingMessage" },
  { method: "GET", template: "/tasks/{id}", response: TaskSchema, query: ["historyLength", "history_length"] },
  {
    method: "GET",
    template: "/tasks",
    response: ListTasksResponseSchema,
    query: ["contextId", "status", "pageSize", "pageToken", "historyLength", "statusTimestampAfter", "includeArtifacts", "page_size"],
  },
  { method: "POST", template: "/tasks/{id}:cancel", response: TaskSchema, bodyOf: "CancelTask" },
  { method: "GET", template: "/tasks/{id}:subscribe" },
  { method: "POST", template: "/tasks/{id}:subscribe", bodyOf: "SubscribeToTask" },
  { method: "POST", template: "/tasks/{taskId}/pushNotificationConfigs", response: TaskPushNotificationConfigSchema, bodyOf: "CreateTaskPushNotificationConfig" },
  { method: "GET", template: "/tasks/{taskId}/pushNotificationConfigs", response: ListTaskPushNotificationConfigsResponseSchema, query: ["pageSize", "pageToken"] },
  { method: "GET", template: "/tasks/{taskId}/pushNotificationConfigs/{id}", response: TaskPushNotificationConfigSchema },
  { method: "DELETE", template: "/tasks/{taskId}/pushNotificationConfigs/{id}", response: EmptySchema },
  { method: "GET", template: "/extendedAgentCard", response: AgentCardSchema },
];

/** One generated REST exchange. `route` names the FUZZ_ROUTES entry the path was built from, if any. */
export interface RestCase {
  readonly kind: string;
  readonly method: string;
  /** The request target as sent: path and query, possibly malformed. */
  readonly target: string;
  readonly route?: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
}

/** The key of a route in FUZZ_ROUTES. */
export const routeKey = (r: FuzzRoute): string => `${r.method} ${r.template}`;

/** Path segments that are not plain ids: broken or tricky percent-encoding, verbs, dots, the very long. */
const oddSegment: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom("%", "%zz", "%2F", "%00", "%E2%82", "%C0%AF", "a%3Acancel", "x:cancel", "x:subscribe", "..", ".", "%2e%2e", "é", "a;b", "a+b", "%252F", "urn:uuid:1") },
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 12_000 }).map((n) => "a".repeat(n)) },
  // Past Node's 16 KiB header limit: the HTTP parser refuses it (431) before any route runs.
  { weight: 1, arbitrary: fc.constant("b".repeat(17_000)) },
);

function segment(known: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.oneof({ weight: 12, arbitrary: known.map(encodeURIComponent) }, { weight: 2, arbitrary: fc.string({ maxLength: 12 }).map(encodeURIComponent) }, { weight: 1, arbitrary: oddSegment });
}

/** Where the routes are mounted: the root, a `/{tenant}` prefix (§11.3), an agent's base path, or a path that is not one. */
const prefix: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constant("") },
  // The hub reads the `/{tenant}` segment as the agent id: /echo is the one agent, the others are not hosted.
  { weight: 2, arbitrary: fc.constantFrom("/echo", "/echo", "/acme", "/%C3%A9", "/a%2Fb", "/%ZZ", "/x:y") },
  { weight: 1, arbitrary: fc.constantFrom("/v1/a2a/agents/echo", "/v1/a2a/agents/nobody", "/v1/a2a/agents/%ZZ", "/v1/a2a/agents/echo/acme") },
);

const queryValue: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      "1", "0", "-1", "100", "101", "2147483648", "abc", "1e3", "1.5", "true", "yes", "TASK_STATE_COMPLETED", "completed", "bogus",
      "2024-01-01T00:00:00Z", "yesterday", "", "NaN", "Infinity", "a,b", "TASK_STATE_WORKING,TASK_STATE_COMPLETED",
    ),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
);

function query(names: readonly string[]): fc.Arbitrary<string> {
  const known = names.length > 0 ? fc.constantFrom(...names, "tenant", "id", "unknownParam") : fc.constantFrom("tenant", "unknownParam");
  const pair = fc.oneof(
    { weight: 5, arbitrary: fc.tuple(known, queryValue).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`) },
    { weight: 1, arbitrary: fc.constantFrom("%ZZ=1", "a=%", "&&", "=", "historyLength", "historyLength=1&historyLength=2", "status=%00", "pageSize=%2B1", "A2A-Version=1.0", "A2A-Version=2.0", "a2a-version=0.3") },
  );
  return fc.oneof({ weight: 2, arbitrary: fc.constant("") }, { weight: 3, arbitrary: fc.array(pair, { minLength: 1, maxLength: 4 }).map((ps) => `?${ps.join("&")}`) });
}

/** Headers: mostly what a client sends, sometimes not (§11.1 media types, §3.2.6 service parameters, RFC 9457 Accept). */
const restHeaders: fc.Arbitrary<Record<string, string>> = fc
  .record({
    "content-type": fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom("application/json", "application/a2a+json", "application/json; charset=utf-8") },
      { weight: 1, arbitrary: fc.constantFrom("text/plain", "application/x-www-form-urlencoded", "application/foo+json", "", undefined) },
    ),
    accept: rarely(
      fc.constantFrom(
        "application/json", "application/a2a+json", "*/*", "text/event-stream", "application/problem+json", "application/problem+json, application/json;q=0.5",
        "application/json;q=0.1, application/problem+json", "text/html", "application/problem+json;q=0",
      ),
    ),
    "a2a-version": rarely(fc.constantFrom("1.0", "1", "", "0.3", "2.0", "x")),
    "a2a-extensions": rarely(fc.constantFrom("https://example.com/ext", "")),
    "last-event-id": rarely(fc.constantFrom("0", "1", "abc", "")),
  })
  .map((h) => {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k] = v;
    return out;
  });

/** Every body shape the REST fuzzer sends to a route whose valid body is `valid`. */
function bodies(valid: fc.Arbitrary<Doc | undefined>): fc.Arbitrary<{ kind: string; body?: string | Uint8Array }> {
  const doc = valid.map((d) => (d === undefined ? {} : d));
  return fc.oneof(
    { weight: 4, arbitrary: valid.map((d) => ({ kind: "valid body", body: d === undefined ? undefined : jsonText(d) })) },
    { weight: 6, arbitrary: mutated(doc).map((d) => ({ kind: "mutated body", body: jsonText(d) })) },
    { weight: 1, arbitrary: fc.jsonValue().map((v) => ({ kind: "random JSON", body: JSON.stringify(v) })) },
    { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 30 }).map((s) => ({ kind: "random text", body: s })) },
    { weight: 1, arbitrary: withDuplicateKeys(doc).map((d) => ({ kind: "duplicate keys", body: jsonText(d) })) },
    { weight: 1, arbitrary: withInvalidUtf8(doc.map(jsonText)).map((b) => ({ kind: "invalid UTF-8", body: b })) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(nestingDepth, fc.constantFrom<"array" | "object">("array", "object"), fc.boolean())
        .map(([d, s, inMetadata]) => ({ kind: "deep nesting", body: inMetadata ? jsonText({ metadata: { a: nested(d, s) } }) : nested(d, s).text })),
    },
    { weight: 1, arbitrary: longString(10_000, 300_000).map((s) => ({ kind: "long string", body: jsonText({ message: { messageId: "long", role: "ROLE_USER", parts: [{ text: `x${s}` }] } }) })) },
  );
}

/** A REST exchange over the route table: method, target, headers and body, mostly well aimed, often not. */
export function restCase(pool: FuzzPool): fc.Arbitrary<RestCase> {
  const params = new Map(validParams(pool));
  const taskId = segment(fc.constantFrom(...pool.taskIds, "t-unknown"));
  const subscribeId = segment(fc.constantFrom(...pool.subscribeIds, "t-unknown"));
  const configs = pool.pushConfigs.length > 0 ? pool.pushConfigs : [["t-none", "c-none"] as const];
  const encoded = ([t, c]: readonly [string, string]) => [encodeURIComponent(t), encodeURIComponent(c)] as const;
  const configPair = fc.oneof(fc.constantFrom(...configs).map(encoded), fc.tuple(taskId, segment(fc.constant("c-none"))));
  // Deletes aim at the config that creates may put back, so that the ones reads aim at stay.
  const deletePair = fc.oneof(fc.constant(encoded(pool.deletableConfig)), fc.tuple(taskId, segment(fc.constant("c-none"))));
  const methods = fc.constantFrom("GET", "POST", "DELETE", "PUT", "PATCH", "OPTIONS", "HEAD");
  const aimed = fc.constantFrom(...FUZZ_ROUTES).chain((route) => {
    const path = fc.tuple(route.template.includes(":subscribe") ? subscribeId : taskId, route.method === "DELETE" ? deletePair : configPair).map(([id, [t, c]]) =>
      route.template.includes("{taskId}") ? route.template.replace("{taskId}", t).replace("{id}", c) : route.template.replace("{id}", id),
    );
    const body = route.bodyOf !== undefined ? bodies(params.get(route.bodyOf)!) : fc.oneof({ weight: 5, arbitrary: fc.constant<{ kind: string; body?: string | Uint8Array }>({ kind: "no body" }) }, { weight: 1, arbitrary: bodies(fc.constant({})) });
    return fc
      .record({ prefix, path, query: query(route.query ?? []), body, method: fc.oneof({ weight: 6, arbitrary: fc.constant(route.method) }, { weight: 1, arbitrary: methods }), headers: restHeaders })
      .map((r): RestCase => ({ kind: r.body.kind, method: r.method, target: `${r.prefix}${r.path}${r.query}`, route: routeKey(route), headers: r.headers, body: r.body.body }));
  });
  const stray = fc
    .record({
      method: methods,
      segments: fc.array(fc.oneof(fc.constantFrom("tasks", "message:send", "message", "pushNotificationConfigs", "extendedAgentCard", ":cancel", ""), segment(fc.constant("x"))), { maxLength: 5 }),
      query: query([]),
      headers: restHeaders,
    })
    // POST / is the JSON-RPC endpoint, not a REST path.
    .map((r): RestCase => ({ kind: "stray path", method: r.method, target: `/${r.segments.join("/") || "x"}${r.query}`, headers: r.headers }));
  return fc.oneof({ weight: 9, arbitrary: aimed }, { weight: 1, arbitrary: stray });
}
