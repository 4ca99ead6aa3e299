import { exceedsJsonDepth, scanJson } from "../http/index.js";
import { isJsonRpcId, type JsonRpcId } from "../../protocol/index.js";

/** What the envelope of a request shows when the request nests too deeply to be read whole. */
export interface DeepEnvelope {
  /** Its `id` when that member is a valid id (a string, number or null), else null. */
  readonly id: JsonRpcId;
  /** Whether it is shaped as a notification: `jsonrpc` "2.0", a string `method`, no `id`. */
  readonly notification: boolean;
}

/** One request of a body: its value, or, past the nesting limit, what its envelope shows. */
export type RpcElement = { readonly value: unknown } | { readonly tooDeep: DeepEnvelope };

/** A JSON-RPC body as far as it may be read: not JSON, one request, or a batch. */
export type RpcBody =
  | { readonly kind: "parseError"; readonly detail: string }
  | { readonly kind: "single"; readonly element: RpcElement }
  | { readonly kind: "batch"; readonly elements: readonly RpcElement[] };

const decode = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8").replace(/^\uFEFF/, "");

/**
 * Reads a JSON-RPC body within `maxDepth` levels of nesting (JSON-RPC 2.0
 * §4-§6). A body within the limit is parsed as usual. One past it is not
 * materialised: a bounded scan (scanJson) tells text that is not JSON
 * (-32700) from JSON that is too deep, and reads what can be read, so the
 * answer is right: a single request's top-level `id` is echoed, and a
 * batch's elements within the limit are answered as usual while only the
 * deep ones are refused.
 */
export function readRpcBody(body: Uint8Array, maxDepth: number): RpcBody {
  if (!exceedsJsonDepth(body, maxDepth)) {
    const text = decode(body);
    if (text.trim() === "") return { kind: "parseError", detail: "the request body is empty" };
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      return { kind: "parseError", detail: e instanceof Error ? e.message : String(e) };
    }
    return Array.isArray(value) ? { kind: "batch", elements: value.map((v) => ({ value: v })) } : { kind: "single", element: { value } };
  }
  const scan = scanJson(body);
  if (!scan.ok) return { kind: "parseError", detail: scan.reason };
  if (scan.top !== "array") return { kind: "single", element: { tooDeep: envelopeOf(body) } };
  // The batch array is one level: an element may nest maxDepth - 1 more.
  const elements = scan.children.map((c): RpcElement => {
    const bytes = body.subarray(c.start, c.end);
    return c.depth + 1 > maxDepth ? { tooDeep: envelopeOf(bytes) } : { value: JSON.parse(decode(bytes)) };
  });
  return { kind: "batch", elements };
}

/** The envelope members of a too-deep request, read from its top-level scalars only. */
function envelopeOf(bytes: Uint8Array): DeepEnvelope {
  const scan = scanJson(bytes);
  if (!scan.ok || scan.top !== "object") return { id: null, notification: false };
  // JSON.parse keeps the last of repeated names; so does this.
  const member = (name: string) => scan.children.filter((c) => c.key === name).at(-1);
  const scalar = (name: string): { present: boolean; value?: unknown } => {
    const c = member(name);
    if (!c) return { present: false };
    return { present: true, value: c.depth === 0 ? JSON.parse(decode(bytes.subarray(c.start, c.end))) : undefined };
  };
  const id = scalar("id");
  const notification = !id.present && scalar("jsonrpc").value === "2.0" && typeof scalar("method").value === "string";
  return { id: id.present && isJsonRpcId(id.value) ? id.value : null, notification };
}
