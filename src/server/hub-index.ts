import type { JsonObject } from "@bufbuild/protobuf";
import { CONSOLE_PATH } from "../console/index.js";
import { AGENT_CATALOG_PATH } from "./agent-catalog-route.js";
import { HEALTHZ_PATH, READYZ_PATH } from "./health-routes.js";
import { WELL_KNOWN_CARD_PATH } from "./card-responses.js";
import { METRICS_PATH } from "./metrics-route.js";

/**
 * What `GET /` answers: this is an A2A hub, and where its card, agents,
 * console, health and metrics are. POST / stays JSON-RPC (§9); the index
 * names paths only, nothing a token would guard.
 */
export function hubIndex(baseUrl: string): JsonObject {
  const at = (path: string) => `${baseUrl.replace(/\/$/, "")}${path}`;
  return {
    name: "a2a-hub",
    description: "An A2A v1.0 server: JSON-RPC at POST /, HTTP+JSON, gRPC, Connect and gRPC-Web on this port.",
    agentCard: at(WELL_KNOWN_CARD_PATH),
    agents: at(AGENT_CATALOG_PATH),
    console: at(CONSOLE_PATH),
    health: { live: at(HEALTHZ_PATH), ready: at(READYZ_PATH) },
    metrics: at(METRICS_PATH),
  };
}
