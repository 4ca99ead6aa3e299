/**
 * The console's inspector, server side: the hub's own client reads any
 * agent's card and makes the calls the page asks for, through the push
 * SSRF guard, and reports every HTTP exchange it made for the raw pane.
 */
export { createInspectRoute, INSPECT_CALL_PATH, INSPECT_CARD_PATH, type InspectOptions } from "./inspect-route.js";
export type { RecordedExchange } from "./recorded-exchange.js";
