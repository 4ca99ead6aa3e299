import type { Task } from "../../../gen/a2a/v1/a2a_pb.js";
import { h } from "./dom.js";

/**
 * The hub's own A2A extension (§4.6) that puts each push config's delivery
 * record in a GetTask answer's metadata under this URI; the same string as
 * the hub's PUSH_DELIVERY_STATE_URI (the page bundles no server code).
 */
export const PUSH_DELIVERY_STATE_URI = "https://a2a-hub.dev/extensions/push-delivery-state/v1";

/** One config's delivery record, as the extension answers it. */
export interface DeliveryState {
  readonly configId: string;
  readonly pending: number;
  readonly dead: number;
  readonly delivered: number;
  readonly lastAttemptAt?: string;
  readonly lastError?: string;
  readonly nextAttemptAt?: string;
}

/** The records of a task fetched with the extension active, by config id. */
export function deliveryStateOf(task: Task): Map<string, DeliveryState> {
  const entries = task.metadata?.[PUSH_DELIVERY_STATE_URI];
  const out = new Map<string, DeliveryState>();
  if (Array.isArray(entries)) for (const e of entries as unknown as DeliveryState[]) if (e && typeof e.configId === "string") out.set(e.configId, e);
  return out;
}

export const DELIVERY_COLUMNS = ["Delivered", "Pending", "Dead", "Last attempt", "Last error", "Next attempt"] as const;

const time = (iso: string | undefined): string => (iso ? new Date(iso).toLocaleString() : "");

/** The table cells of one config's record, in DELIVERY_COLUMNS order (empty when the hub has none yet). */
export function deliveryCells(s: DeliveryState | undefined): HTMLElement[] {
  return [
    h("td", { "data-col": "delivered" }, String(s?.delivered ?? 0)),
    h("td", { "data-col": "pending" }, String(s?.pending ?? 0)),
    h("td", { "data-col": "dead", class: s?.dead ? "error" : undefined }, String(s?.dead ?? 0)),
    h("td", { "data-col": "last-attempt" }, time(s?.lastAttemptAt)),
    h("td", { "data-col": "last-error" }, s?.lastError ?? ""),
    h("td", { "data-col": "next-attempt" }, time(s?.nextAttemptAt)),
  ];
}
