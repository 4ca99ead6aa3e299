import { h } from "./dom.js";
import type { RecordedExchange } from "./inspect-client.js";

/** One HTTP exchange in the raw pane: request line, status, timing, headers (credentials masked), SSE ids, gRPC status and trailers. */
export function exchangeItem(e: RecordedExchange): HTMLElement {
  const headers = (title: string, hs: Record<string, string> | undefined): HTMLElement | null =>
    hs && Object.keys(hs).length ? h("div", { class: "headers" }, h("h4", {}, title), h("dl", {}, Object.entries(hs).map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]))) : null;
  const timing = e.totalMs !== undefined ? `${e.headMs ?? e.totalMs} ms to head, ${e.totalMs} ms in all${e.bytes !== undefined ? `, ${e.bytes} bytes` : ""}` : e.headMs !== undefined ? `${e.headMs} ms to head…` : "waiting…";
  return h(
    "li",
    { class: `exchange${e.error ? " failed" : ""}`, "data-exchange-id": e.id, "data-status": e.status ?? "", "data-grpc-status": e.grpcStatus ?? "" },
    h(
      "div",
      { class: "ex-line" },
      h("code", {}, `${e.method} ${e.url}`),
      " ",
      e.status !== undefined ? h("span", { class: `http-status s${String(e.status)[0]}` }, `HTTP ${e.status}`) : null,
      e.grpcStatus ? h("span", { class: `grpc-status${e.grpcStatus === "OK" ? "" : " bad"}` }, ` grpc-status ${e.grpcStatus}${e.grpcMessage ? `: ${e.grpcMessage}` : ""}`) : null,
      " ",
      h("span", { class: "timing" }, timing),
    ),
    e.error ? h("p", { class: "error" }, e.error) : null,
    e.sseIds?.length ? h("p", { class: "sse-ids" }, `SSE event ids: ${e.sseIds.join(", ")}`) : null,
    h(
      "details",
      {},
      h("summary", {}, "Headers and body"),
      headers("Request headers", e.requestHeaders),
      e.requestBody ? h("pre", { class: "request-body" }, pretty(e.requestBody)) : null,
      headers("Response headers", e.responseHeaders),
      headers("Trailers", e.trailers),
    ),
  );
}

function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 1);
  } catch {
    return text;
  }
}
