import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { scanJson } from "../../../src/bindings/http/index.js";
import { post } from "../../helpers/jsonrpc-requests.js";
import { startTestHub, type TestHub } from "../../helpers/test-hub.js";

/*
 * JSON-RPC 2.0 corners (jsonrpc.org/specification §4-§6), as properties
 * over generated requests, both dialects and the streaming methods alike:
 * bodies past limits.maxJsonDepth keep the right code and id, params that
 * is not a structured value makes a request invalid (and answered), and a
 * batch gets exactly one response per element that is not a valid
 * notification.
 */

const LIMIT = 8;
const RUNS = 40;

/** Methods of both dialects, unary and streaming; none of them changes anything for an unknown task. */
const METHODS = ["GetTask", "tasks/get", "CancelTask", "tasks/cancel", "SubscribeToTask", "tasks/resubscribe", "SendStreamingMessage", "message/stream", "SendMessage", "message/send"];
const STREAMING = new Set(["SubscribeToTask", "tasks/resubscribe", "SendStreamingMessage", "message/stream"]);

const method = fc.constantFrom(...METHODS);
const id = fc.oneof(fc.string({ maxLength: 12 }), fc.integer(), fc.constant(null));
/** Nested arrays/objects `levels` deep, as text. */
const nested = (levels: number, kind: "a" | "o") => (kind === "a" ? `${"[".repeat(levels)}1${"]".repeat(levels)}` : `${'{"k":'.repeat(levels)}1${"}".repeat(levels)}`);
/** A request whose params nest `extra` levels below params.metadata. */
const deepRequest = (m: string, rid: unknown, extra: number, kind: "a" | "o", withId = true) =>
  `{"jsonrpc":"2.0",${withId ? `"id":${JSON.stringify(rid)},` : ""}"method":${JSON.stringify(m)},"params":{"id":"t-unknown","metadata":${nested(extra, kind)}}}`;
const depthOver = fc.integer({ min: LIMIT, max: LIMIT + 200 });
const kind = fc.constantFrom<"a" | "o">("a", "o");

let t: TestHub;
beforeAll(async () => {
  t = await startTestHub({ maxJsonDepth: LIMIT });
});
afterAll(async () => {
  await t.stop();
});

/** A body's JSON answer; fails when the answer is an event stream or 204. */
async function answer(body: string): Promise<any> {
  const r = await post(t.url, body);
  expect(r.status, r.text).toBe(200);
  expect(r.headers.get("content-type")).toContain("application/json");
  return r.json;
}

describe("the bounded scanner agrees with JSON.parse", () => {
  it("on generated JSON texts and on their corruptions", () => {
    const text = fc.oneof(
      fc.json({ depthSize: "medium" }),
      fc.json().chain((j) => fc.tuple(fc.constant(j), fc.nat(j.length), fc.constantFrom("", "]", "}", ",", '"', ":", "x", "\\", "-", "1e")).map(([s, at, junk]) => s.slice(0, at) + junk + s.slice(at + 1))),
    );
    fc.assert(
      fc.property(text, (s) => {
        let parsed: unknown;
        let ok = true;
        try {
          parsed = JSON.parse(s);
        } catch {
          ok = false;
        }
        const scan = scanJson(Buffer.from(s));
        expect(scan.ok, s).toBe(ok);
        if (scan.ok && Array.isArray(parsed)) expect(scan.children.length).toBe(parsed.length);
        if (scan.ok && Array.isArray(parsed)) scan.children.forEach((c, i) => expect(JSON.parse(s.slice(c.start, c.end))).toEqual(parsed[i]));
      }),
      { numRuns: 2000 },
    );
  });

  it("reads a body nested 100,000 levels deep without recursion", () => {
    const scan = scanJson(Buffer.from(nested(100_000, "a")));
    expect(scan).toMatchObject({ ok: true, top: "array", depth: 100_000 });
  });
});

describe("bodies past limits.maxJsonDepth (JSON-RPC 2.0 §5.1)", () => {
  it("text that is not JSON is -32700 with id null, however deep it nests", async () => {
    await fc.assert(
      fc.asyncProperty(method, id, depthOver, kind, fc.constantFrom("drop-last", "truncate", "junk"), async (m, rid, extra, k, how) => {
        const good = deepRequest(m, rid, extra, k);
        const bad = how === "drop-last" ? good.slice(0, -1) : how === "truncate" ? good.slice(0, good.length - 2 - (extra >> 1)) : good.replace('"metadata":', '"metadata" ');
        expect(() => JSON.parse(bad)).toThrow();
        expect(await answer(bad)).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
      }),
      { numRuns: RUNS },
    );
  });

  it("valid JSON with a readable top-level id is -32600 echoing that id, for unary and streaming methods of both dialects", async () => {
    await fc.assert(
      fc.asyncProperty(method, id, depthOver, kind, async (m, rid, extra, k) => {
        const json = await answer(deepRequest(m, rid, extra, k));
        expect(json).toEqual({ jsonrpc: "2.0", id: rid, error: { code: -32600, message: expect.stringContaining("limits.maxJsonDepth") } });
      }),
      { numRuns: RUNS },
    );
  });

  it("a batch with too-deep elements is an array: each deep element -32600 with its id, the others answered as usual", async () => {
    const element = fc.record({ deep: fc.boolean(), method, extra: depthOver, kind, notification: fc.boolean() });
    await fc.assert(
      fc.asyncProperty(fc.array(element, { minLength: 1, maxLength: 6 }), async (elements) => {
        fc.pre(elements.some((e) => e.deep));
        const texts = elements.map((e, i) => {
          const m = e.notification && !STREAMING.has(e.method) ? e.method : "GetTask";
          // Shallow elements ask for an unknown task: -32001 for a request, nothing for a notification.
          return e.deep ? deepRequest(e.method, `e${i}`, e.extra - 1, e.kind, !e.notification) : JSON.stringify({ jsonrpc: "2.0", ...(e.notification ? {} : { id: `e${i}` }), method: m, params: { id: "t-unknown" } });
        });
        const r = await post(t.url, `[${texts.join(",")}]`);
        const expected = elements.flatMap((e, i) => {
          if (e.notification) return [];
          return [{ jsonrpc: "2.0", id: `e${i}`, error: expect.objectContaining({ code: e.deep ? -32600 : -32001 }) }];
        });
        if (expected.length === 0) {
          expect(r.status).toBe(204);
          return;
        }
        expect(r.json, r.text).toEqual(expect.arrayContaining(expected));
        expect(r.json).toHaveLength(expected.length);
      }),
      { numRuns: RUNS },
    );
  });
});

describe("params that is present but not an object or an array (JSON-RPC 2.0 §4)", () => {
  const badParams = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constant(null), fc.boolean());

  it("makes the request invalid: -32600, answered even without an id (then with id null)", async () => {
    await fc.assert(
      fc.asyncProperty(method, fc.option(id, { nil: undefined }), badParams, async (m, rid, params) => {
        const request = { jsonrpc: "2.0", ...(rid === undefined ? {} : { id: rid }), method: m, params };
        const json = await answer(JSON.stringify(request));
        expect(json).toEqual({ jsonrpc: "2.0", id: rid ?? null, error: { code: -32600, message: expect.stringContaining('"params"') } });
      }),
      { numRuns: RUNS },
    );
  });
});

describe("batches (JSON-RPC 2.0 §6)", () => {
  it("get exactly one response per element that is not a valid notification, whatever the elements' params", async () => {
    const params = fc.oneof(fc.constant(undefined), fc.constant({ id: "t-unknown" }), fc.constant([]), fc.string({ maxLength: 4 }), fc.integer(), fc.constant(null), fc.boolean());
    const element = fc.record({ method, params, withId: fc.boolean() });
    await fc.assert(
      fc.asyncProperty(fc.array(element, { minLength: 1, maxLength: 8 }), async (elements) => {
        const requests = elements.map((e, i) => ({ jsonrpc: "2.0", ...(e.withId ? { id: i } : {}), method: e.method, ...(e.params === undefined ? {} : { params: e.params }) }));
        const structured = (p: unknown) => p === undefined || (typeof p === "object" && p !== null);
        // A notification is valid only with structured (or no) params; every other element needs its answer.
        const answered = elements.map((e, i) => ({ e, i })).filter(({ e }) => e.withId || !structured(e.params));
        const r = await post(t.url, JSON.stringify(requests));
        if (answered.length === 0) {
          expect(r.status, r.text).toBe(204);
          return;
        }
        expect(Array.isArray(r.json), r.text).toBe(true);
        expect(r.json).toHaveLength(answered.length);
        for (const { e, i } of answered) {
          if (!structured(e.params)) expect(r.json, `element ${i}`).toContainEqual(expect.objectContaining({ id: e.withId ? i : null, error: expect.objectContaining({ code: -32600 }) }));
          else expect(r.json.some((x: any) => x.id === i), `element ${i}`).toBe(true);
        }
      }),
      { numRuns: RUNS },
    );
  });
});
