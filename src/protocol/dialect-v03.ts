/**
 * The A2A v0.3 JSON dialect, both directions, in one place:
 * `v03ToV1…` turn v0.3 JSON into v1.0 ProtoJSON (which is then read with
 * fromJson), `v1ToV03…` turn v1.0 messages into the v0.3 shapes of the
 * v0.3.0 schema. The server needs requests in and results out; the other
 * two directions (results in, requests out) serve clients of v0.3 agents
 * and make every shape testable by round trip.
 *
 * What v0.3 cannot carry is dropped on the way out: a text or data part's
 * mediaType and filename, an AgentInterface's tenant and protocolVersion.
 */
export * from "./v03-parts.js";
export * from "./v03-tasks.js";
export * from "./v03-requests.js";
export * from "./v03-card.js";
