import fc from "fast-check";
import { HUGE_NUMBERS, jsonText, longString, mutated, nested, nestingDepth, withDuplicateKeys, withInvalidUtf8, type Doc } from "./fuzz-json.js";

/** What exists on the hub under test, so that generated requests reach real tasks and configs. */
export interface FuzzPool {
  /** Tasks that exist (any state): read, cancel, continue, push configs. */
  readonly taskIds: readonly string[];
  /**
   * Tasks a subscription may name: terminal ones. A subscription to an
   * interrupted task stays open until it moves (§3.1.6), which a fuzzer
   * would count as a hang.
   */
  readonly subscribeIds: readonly string[];
  /** Push configs that exist and stay, as [taskId, configId]. */
  readonly pushConfigs: readonly (readonly [string, string])[];
  /** A push config that deletes may remove and creates may put back, as [taskId, configId]. */
  readonly deletableConfig: readonly [string, string];
  readonly contextIds: readonly string[];
  /** A webhook that accepts deliveries (the hub allows its loopback address). */
  readonly pushUrl: string;
}

/**
 * Message texts the echo agent answers at once. `slow` is left out (it
 * blocks its task), and so is any text that could start with a command
 * (random texts are prefixed with "x").
 */
const texts: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom("hello", "stream 2", "stream 1", "message", "fail", "reject", "input-required", "hi there", "") },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }).map((s) => `x${s}`) },
);

const idLike = (known: readonly string[]): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 4, arbitrary: known.length > 0 ? fc.constantFrom(...known) : fc.constant("t-none") },
    { weight: 1, arbitrary: fc.constantFrom("", "t-unknown", "urn:uuid:00000000-0000-0000-0000-000000000000", "../tasks", "a/b", "%2F", "\u0000", "é") },
    { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
  );

/** Mostly fresh messageIds; a few repeat, which §3.3.1 makes a retry of the first send (or InvalidParams if the message differs). */
const messageId: fc.Arbitrary<string> = fc.oneof({ weight: 6, arbitrary: fc.uuid() }, { weight: 1, arbitrary: fc.constantFrom("dup-1", "dup-2") });

const smallStruct: fc.Arbitrary<Doc> = fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Doc>, { maxKeys: 3 });

const opt = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(arb, { nil: undefined, freq: 2 });

/** Drops undefined members: a generated record leaves optional ones out that way. */
function compact(o: Record<string, Doc | undefined>): Doc {
  const out: Record<string, Doc> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out;
}

/** Valid params of every JSON-RPC method, v1.0 (§9.4) and v0.3, given what exists on the hub. */
export function validParams(pool: FuzzPool): ReadonlyArray<readonly [string, fc.Arbitrary<Doc | undefined>]> {
  const taskId = idLike(pool.taskIds);
  const subscribeId = idLike(pool.subscribeIds);
  const contextId = idLike(pool.contextIds);
  const configPair = pool.pushConfigs.length > 0 ? fc.constantFrom(...pool.pushConfigs) : fc.constant(["t-none", "c-none"] as const);
  const [deletableTask, deletableId] = pool.deletableConfig;
  const deletePair = fc.constantFrom(pool.deletableConfig, [deletableTask, "c-none"] as const);
  const historyLength = fc.oneof(fc.integer({ min: 0, max: 5 }), fc.constant(100));
  const v1Part: fc.Arbitrary<Doc> = fc.oneof(
    { weight: 6, arbitrary: texts.map((text) => ({ text })) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((data) => ({ data: data as Doc })) },
    { weight: 1, arbitrary: fc.constant({ url: "https://example.com/a.txt", mediaType: "text/plain", filename: "a.txt" }) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 16 }).map((b) => ({ raw: Buffer.from(b).toString("base64"), mediaType: "application/octet-stream" })) },
  );
  const v1Message = fc
    .record({
      messageId,
      role: fc.constantFrom("ROLE_USER", "user", "ROLE_AGENT"),
      parts: fc.array(v1Part, { minLength: 1, maxLength: 3 }),
      taskId: opt(taskId),
      contextId: opt(contextId),
      metadata: opt(smallStruct),
      extensions: opt(fc.array(fc.constantFrom("https://example.com/ext", "urn:x"), { maxLength: 2 })),
      referenceTaskIds: opt(fc.array(taskId, { maxLength: 2 })),
    })
    .map(compact);
  const configId = fc.oneof(fc.constant(deletableId), fc.string({ maxLength: 8 }));
  const v1PushConfig = fc
    .record({ url: fc.constant(pool.pushUrl), id: opt(configId), token: opt(fc.constant("tok")), authentication: opt(fc.constant({ scheme: "Bearer", credentials: "c" })) })
    .map(compact);
  const v1Send = fc
    .record({
      message: v1Message,
      configuration: opt(
        fc
          .record({
            acceptedOutputModes: opt(fc.constantFrom(["text/plain"], ["application/json"], [])),
            historyLength: opt(historyLength),
            returnImmediately: opt(fc.boolean()),
            taskPushNotificationConfig: opt(v1PushConfig),
          })
          .map(compact),
      ),
      metadata: opt(smallStruct),
    })
    .map(compact);
  const listTasks = fc
    .record({
      contextId: opt(contextId),
      status: opt(fc.constantFrom("TASK_STATE_COMPLETED", "completed", "input-required", "TASK_STATE_WORKING", "canceled")),
      pageSize: opt(fc.integer({ min: 1, max: 100 })),
      pageToken: opt(fc.constantFrom("", "bogus")),
      historyLength: opt(historyLength),
      statusTimestampAfter: opt(fc.constantFrom("2020-01-01T00:00:00Z", "2999-01-01T00:00:00.5Z")),
      includeArtifacts: opt(fc.boolean()),
    })
    .map(compact);
  const v03Part: fc.Arbitrary<Doc> = fc.oneof(
    { weight: 6, arbitrary: texts.map((text) => ({ kind: "text", text })) },
    { weight: 1, arbitrary: smallStruct.map((data) => ({ kind: "data", data })) },
    { weight: 1, arbitrary: fc.constant({ kind: "file", file: { uri: "https://example.com/a.txt", mimeType: "text/plain", name: "a.txt" } }) },
  );
  const v03Message = fc
    .record({
      kind: fc.constant("message"),
      messageId,
      role: fc.constantFrom("user", "agent"),
      parts: fc.array(v03Part, { minLength: 1, maxLength: 3 }),
      taskId: opt(taskId),
      contextId: opt(contextId),
      metadata: opt(smallStruct),
    })
    .map(compact);
  const v03PushConfig = fc.record({ url: fc.constant(pool.pushUrl), id: opt(configId), token: opt(fc.constant("tok")), authentication: opt(fc.constant({ schemes: ["Bearer"] })) }).map(compact);
  const v03Send = fc
    .record({
      message: v03Message,
      configuration: opt(
        fc.record({ blocking: opt(fc.boolean()), historyLength: opt(historyLength), acceptedOutputModes: opt(fc.constant(["text/plain"])), pushNotificationConfig: opt(v03PushConfig) }).map(compact),
      ),
      metadata: opt(smallStruct),
    })
    .map(compact);
  const none = fc.constantFrom<Doc | undefined>(undefined, {}, null);
  return [
    ["SendMessage", v1Send],
    ["SendStreamingMessage", v1Send],
    ["GetTask", fc.record({ id: taskId, historyLength: opt(historyLength) }).map(compact)],
    ["ListTasks", listTasks],
    ["CancelTask", fc.record({ id: taskId, metadata: opt(smallStruct) }).map(compact)],
    ["SubscribeToTask", fc.record({ id: subscribeId }).map(compact)],
    ["CreateTaskPushNotificationConfig", fc.tuple(fc.oneof(fc.constant(deletableTask), taskId), v1PushConfig).map(([t, c]) => ({ ...(c as object), taskId: t }) as Doc)],
    ["GetTaskPushNotificationConfig", configPair.map(([t, id]) => ({ taskId: t, id }))],
    ["ListTaskPushNotificationConfigs", fc.record({ taskId, pageSize: opt(fc.integer({ min: 0, max: 100 })), pageToken: opt(fc.constant("")) }).map(compact)],
    ["DeleteTaskPushNotificationConfig", deletePair.map(([t, id]) => ({ taskId: t, id }))],
    ["GetExtendedAgentCard", none],
    ["message/send", v03Send],
    ["message/stream", v03Send],
    ["tasks/get", fc.record({ id: taskId, historyLength: opt(historyLength) }).map(compact)],
    ["tasks/cancel", fc.record({ id: taskId }).map(compact)],
    ["tasks/resubscribe", fc.record({ id: subscribeId }).map(compact)],
    ["tasks/pushNotificationConfig/set", fc.tuple(fc.oneof(fc.constant(deletableTask), taskId), v03PushConfig).map(([t, c]) => ({ taskId: t, pushNotificationConfig: c }))],
    ["tasks/pushNotificationConfig/get", fc.tuple(configPair, fc.boolean()).map(([[t, id], withId]) => (withId ? { id: t, pushNotificationConfigId: id } : { id: t }))],
    ["tasks/pushNotificationConfig/list", fc.record({ id: taskId })],
    ["tasks/pushNotificationConfig/delete", deletePair.map(([t, id]) => ({ id: t, pushNotificationConfigId: id }))],
    ["agent/getAuthenticatedExtendedCard", none],
  ];
}

/** JSON-RPC 2.0 §4: an id is a string, a number or null; absent makes a notification. */
const requestId: fc.Arbitrary<Doc | undefined> = fc.oneof(
  { weight: 6, arbitrary: fc.integer() },
  { weight: 3, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.constantFrom<Doc>(...HUGE_NUMBERS, 1.5, "\ud800", "") },
);

/** A valid request object of any method of the facade. */
export function validRequest(pool: FuzzPool): fc.Arbitrary<Doc> {
  return fc.oneof(
    ...validParams(pool).map(([method, params]) =>
      fc.tuple(requestId, params).map(([id, p]) => compact({ jsonrpc: "2.0", ...(id === undefined ? {} : { id }), method, ...(p === undefined ? {} : { params: p }) })),
    ),
  );
}

/** One generated JSON-RPC exchange: what to POST where, and which generator made it. */
export interface RpcCase {
  readonly kind: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | Uint8Array;
}

/** A value that is mostly absent (a header, a query parameter). */
export const rarely = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });

/** Service parameter headers (§3.2.6) and the like, mostly absent, sometimes wrong. */
const serviceHeaders: fc.Arbitrary<Record<string, string>> = fc
  .record({
    "a2a-version": rarely(fc.constantFrom("1.0", "0.3", "1", "1.0.1", "", " 1.0 ", "2.0", "0.2", "abc")),
    "a2a-extensions": rarely(fc.constantFrom("https://example.com/ext", "", ",,,", "urn:a, urn:b")),
    "content-type": opt(fc.constantFrom("application/json", "application/json", "application/a2a+json", "text/plain", "application/json; charset=utf-16", "")),
    accept: rarely(fc.constantFrom("application/json", "text/event-stream", "*/*", "application/problem+json")),
    "last-event-id": rarely(fc.constantFrom("0", "1", "999999", "abc", "-1", "")),
  })
  .map((h) => compact(h) as Record<string, string>);

/** Every shape of body the JSON-RPC fuzzer sends, by generator name. */
export function rpcBodies(pool: FuzzPool): ReadonlyArray<readonly [string, number, fc.Arbitrary<string | Uint8Array>]> {
  const valid = validRequest(pool);
  const mutant = mutated(valid);
  const element: fc.Arbitrary<Doc> = fc.oneof({ weight: 3, arbitrary: valid }, { weight: 3, arbitrary: mutant }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Doc> });
  const deepInside = fc.tuple(nestingDepth, fc.constantFrom<"array" | "object">("array", "object"), fc.constantFrom("bare", "params", "metadata", "data", "id", "batch")).map(([depth, shape, where]) => {
    const deep = nested(depth, shape);
    const part = { text: "hello" };
    switch (where) {
      case "bare":
        return deep.text;
      case "params":
        return jsonText({ jsonrpc: "2.0", id: 1, method: "GetTask", params: deep });
      case "metadata":
        return jsonText({ jsonrpc: "2.0", id: 2, method: "SendMessage", params: { message: { messageId: "deep", role: "ROLE_USER", parts: [part] }, metadata: { a: deep } } });
      case "data":
        return jsonText({ jsonrpc: "2.0", id: 3, method: "message/send", params: { message: { kind: "message", messageId: "deep", role: "user", parts: [{ kind: "data", data: { a: deep } }] } } });
      case "id":
        return jsonText({ jsonrpc: "2.0", id: deep, method: "GetTask", params: { id: "x" } });
      default:
        return jsonText([{ jsonrpc: "2.0", id: 4, method: "ListTasks", params: { metadata: deep } }]);
    }
  });
  return [
    ["random JSON", 3, fc.jsonValue().map((v) => JSON.stringify(v))],
    ["random text", 2, fc.oneof(fc.string({ unit: "binary", maxLength: 40 }), fc.constantFrom("", " ", "{", "[", '{"jsonrpc":"2.0"', "nul", "\uFEFF", "[1,]", "{'a':1}", "1 2"))],
    ["valid request", 12, valid.map(jsonText)],
    ["valid request with BOM", 1, valid.map((d) => `\uFEFF${jsonText(d)}`)],
    ["mutated request", 14, mutant.map(jsonText)],
    ["deep nesting", 2, deepInside],
    ["invalid UTF-8", 2, withInvalidUtf8(fc.oneof(valid, mutant).map(jsonText))],
    ["duplicate keys", 3, withDuplicateKeys(fc.oneof(valid, mutant)).map(jsonText)],
    ["batch", 4, fc.array(element, { maxLength: 8 }).map((b) => jsonText(b))],
    ["large batch", 1, fc.tuple(fc.integer({ min: 99, max: 102 }), fc.constantFrom("GetTask", "tasks/get", "Nope")).map(([n, method]) => JSON.stringify(Array.from({ length: n }, (_, i) => ({ jsonrpc: "2.0", id: i, method, params: { id: "t-unknown" } }))))],
    ["long string", 1, fc.tuple(longString(10_000, 400_000), fc.constantFrom("text", "messageId", "method", "id")).map(([s, where]) => {
      if (where === "method") return jsonText({ jsonrpc: "2.0", id: 5, method: s });
      if (where === "id") return jsonText({ jsonrpc: "2.0", id: s, method: "GetTask", params: { id: "x" } });
      const message = { messageId: where === "messageId" ? s : "long", role: "ROLE_USER", parts: [{ text: where === "text" ? `x${s}` : "hello" }] };
      return jsonText({ jsonrpc: "2.0", id: 6, method: "SendMessage", params: { message } });
    })],
  ];
}

/** A JSON-RPC exchange: body, headers, and the endpoint (the root, or an agent's own path). */
export function rpcCase(pool: FuzzPool): fc.Arbitrary<RpcCase> {
  const bodies = rpcBodies(pool).map(([kind, weight, body]) => ({ weight, arbitrary: body.map((b) => ({ kind, body: b })) }));
  return fc
    .tuple(fc.oneof(...bodies), serviceHeaders, fc.constantFrom("/", "/", "/", "/v1/a2a/agents/echo", "/v1/a2a/agents/nobody"))
    .map(([{ kind, body }, headers, path]) => ({ kind, path, headers, body }));
}
