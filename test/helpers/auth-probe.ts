import { Code, ConnectError } from "@connectrpc/connect";
import { textRequest } from "./messages.js";
import type { TestHub } from "./test-hub.js";

/** The bindings an authentication answer is checked on. */
export const AUTH_BINDINGS = ["jsonrpc", "rest", "grpc", "connect"] as const;
export type AuthBinding = (typeof AUTH_BINDINGS)[number];

/** What a call answered, reduced to what refusal tests compare. */
export interface AuthAnswer {
  readonly ok: boolean;
  /** HTTP status (JSON-RPC, REST) or the gRPC/Connect code's name. */
  readonly status: string;
  /** The WWW-Authenticate header (HTTP bindings) or metadata (gRPC, Connect). */
  readonly challenge?: string;
  /** The ErrorInfo reason, when the answer carried one. */
  readonly reason?: string;
  /** A task id the call produced or read. */
  readonly taskId?: string;
}

const message = (text: string) => ({ messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] });

/**
 * SendMessage ("send") or GetTask of `taskId` ("get") with a bearer token,
 * over one binding, at the root endpoints; `tenant` names the agent (gRPC
 * and Connect always name one: the hubs here host several).
 */
export async function callWith(hub: TestHub, binding: AuthBinding, token: string | undefined, op: { send: string } | { get: string }, agent = ""): Promise<AuthAnswer> {
  const tenant = agent === "" && (binding === "grpc" || binding === "connect") ? "echo" : agent;
  const auth: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
  if (binding === "grpc" || binding === "connect") {
    const client = hub.client(binding === "grpc" ? "grpc" : "connect-h1");
    try {
      const task =
        "send" in op
          ? (await client.sendMessage({ ...textRequest(op.send), tenant }, { headers: auth })).payload.value
          : await client.getTask({ tenant, id: op.get }, { headers: auth });
      return { ok: true, status: "OK", taskId: (task as { id?: string } | undefined)?.id };
    } catch (e) {
      const err = ConnectError.from(e);
      return { ok: false, status: Code[err.code], challenge: err.metadata.get("www-authenticate") ?? undefined };
    }
  }
  let res: Response;
  if (binding === "jsonrpc") {
    const [method, params] = "send" in op ? ["SendMessage", { tenant, message: message(op.send) }] : ["GetTask", { tenant, id: op.get }];
    res = await fetch(hub.url, { method: "POST", headers: { "content-type": "application/json", ...auth }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
  } else {
    const prefix = tenant ? `/${tenant}` : "";
    res =
      "send" in op
        ? await fetch(`${hub.url.replace(/\/$/, "")}${prefix}/message:send`, { method: "POST", headers: { "content-type": "application/json", ...auth }, body: JSON.stringify({ message: message(op.send) }) })
        : await fetch(`${hub.url.replace(/\/$/, "")}${prefix}/tasks/${op.get}`, { headers: auth });
  }
  const body = (await res.json()) as any;
  const error = binding === "jsonrpc" ? body.error && { details: body.error.data } : body.error;
  const reason = Array.isArray(error?.details) ? error.details.find((d: any) => d.reason)?.reason : undefined;
  const result = binding === "jsonrpc" ? body.result : body;
  const taskId = result?.task?.id ?? result?.id;
  return { ok: res.status === 200 && !error, status: String(res.status), challenge: res.headers.get("www-authenticate") ?? undefined, reason, taskId };
}
