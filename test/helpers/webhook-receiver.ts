import * as http from "node:http";
import type { AddressInfo } from "node:net";

/** One POST the receiver got. */
export interface Received {
  readonly body: Record<string, unknown>;
  readonly headers: http.IncomingHttpHeaders;
  /** The event's sequence number from the x-a2a-hub-event-seq header. */
  readonly seq: number;
}

/** One accepted POST, kept even when it repeats an earlier one: for at-least-once and order checks across tasks. */
export interface Accepted {
  /** The request path and query: a config's own URL tells its deliveries apart. */
  readonly path: string;
  readonly taskId: string;
  /** The payload's kind: statusUpdate, artifactUpdate or task (the final snapshot). */
  readonly kind: string;
  readonly seq: number;
}

/** A webhook endpoint on loopback that records deliveries and can be told to fail. */
export interface WebhookReceiver {
  readonly url: string;
  /** Accepted deliveries, deduplicated by (kind, seq) as a receiver should. */
  readonly received: Received[];
  /** Every accepted POST in arrival order, repeats included. */
  readonly accepted: Accepted[];
  /** Every attempt, including refused ones. */
  attempts: number;
  /** Decides the status of each attempt; 200 when it returns undefined. */
  respond: (attempt: number, seq: number) => number | undefined;
  /** Resolves once `n` deliveries were accepted (rejects after `ms`). */
  waitFor(n: number, ms?: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts a receiver on 127.0.0.1, port `port` (0 = any). */
export async function startReceiver(port = 0): Promise<WebhookReceiver> {
  const seen = new Set<string>();
  const receiver: WebhookReceiver = {
    url: "",
    received: [],
    accepted: [],
    attempts: 0,
    respond: () => undefined,
    waitFor: (n, ms = 15_000) =>
      new Promise((resolve, reject) => {
        const started = Date.now();
        const check = () => {
          if (receiver.received.length >= n) return resolve();
          if (Date.now() - started > ms) return reject(new Error(`only ${receiver.received.length} of ${n} deliveries arrived`));
          setTimeout(check, 20);
        };
        check();
      }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = http.createServer((req, res) => {
    let text = "";
    req.setEncoding("utf8");
    req.on("data", (d: string) => (text += d));
    req.on("end", () => {
      receiver.attempts++;
      const seq = Number(req.headers["x-a2a-hub-event-seq"]);
      const status = receiver.respond(receiver.attempts, seq) ?? 200;
      if (status >= 200 && status < 300) {
        const body = JSON.parse(text) as Record<string, unknown>;
        const kind = Object.keys(body)[0] ?? "";
        const inner = body[kind] as { taskId?: string; id?: string } | undefined;
        receiver.accepted.push({ path: req.url ?? "", taskId: inner?.taskId ?? inner?.id ?? "", kind, seq });
        const key = `${kind}:${seq}`;
        if (!seen.has(key)) {
          seen.add(key);
          receiver.received.push({ body, headers: req.headers, seq });
        }
      }
      res.writeHead(status).end();
    });
  });
  server.keepAliveTimeout = 100;
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  (receiver as { url: string }).url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return receiver;
}

/** The payload kind and the event's state or artifact text, for order checks. */
export function describeEvent(body: Record<string, unknown>): string {
  const [kind, value] = Object.entries(body)[0] as [string, Record<string, any>];
  if (kind === "statusUpdate") return `status:${value.status.state}`;
  if (kind === "artifactUpdate") return `artifact:${value.artifact.parts[0].text.trim()}`;
  return `${kind}:${value.status?.state}`;
}

/** What a receiver gets for an echo `stream <n>` task, in describeEvent's words: WORKING, n chunks, COMPLETED, the final task. */
export function streamDeliveries(n: number): string[] {
  return ["status:TASK_STATE_WORKING", ...Array.from({ length: n }, (_, i) => `artifact:chunk ${i + 1}`), "status:TASK_STATE_COMPLETED", "task:TASK_STATE_COMPLETED"];
}
